import { Injectable } from '@nestjs/common';
import { AuditActor, AuditLog } from '../audit/audit-log.service';
import { UsersService } from '../users/users.service';
import { ConflictError, NotFoundError } from '../common/domain-errors';
import { ProjectsService } from '../projects/projects.service';
import { slugify } from '../projects/slug';
import { TeamRow, TeamsRepository } from './teams.repository';

export interface TeamView {
  id: number;
  slug: string;
  name: string;
  created_at: string;
  member_ids: number[];
  project_ids: number[];
}

/** Teams group members and are given projects: a member or viewer sees their teams' projects. */
@Injectable()
export class TeamsService {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly users: UsersService,
    private readonly projects: ProjectsService,
    private readonly audit: AuditLog,
  ) {}

  async list(): Promise<TeamView[]> {
    return (await this.teams.list()).map(toTeamView);
  }

  async get(id: number): Promise<TeamView> {
    return toTeamView(await this.found(id));
  }

  /** Its slug comes from the name (`#slug` in searches) and is never changed by a rename. */
  async create(by: AuditActor, name: string): Promise<TeamView> {
    const slug = slugify(name.trim()).replace(/^project$/, 'team');
    const id = await this.teams.insert(slug, name.trim());
    if (id === null) throw new ConflictError(`a team with the slug "${slug}" exists already`);
    await this.audit.record(by, 'team.create', { type: 'team', id }, { name: name.trim(), slug });
    return this.get(id);
  }

  async rename(by: AuditActor, id: number, name: string): Promise<TeamView> {
    if (!(await this.teams.rename(id, name.trim()))) throw new NotFoundError('team not found');
    await this.audit.record(by, 'team.rename', { type: 'team', id }, { name: name.trim() });
    return this.get(id);
  }

  async remove(by: AuditActor, id: number): Promise<void> {
    const team = await this.found(id);
    await this.teams.delete(id);
    await this.audit.record(by, 'team.delete', { type: 'team', id }, { name: team.name, slug: team.slug });
  }

  async addMember(by: AuditActor, id: number, userId: number): Promise<void> {
    await this.found(id);
    const user = await this.users.findById(userId);
    if (!user) throw new NotFoundError('member not found');
    if (await this.teams.addMember(id, userId)) {
      await this.audit.record(
        by,
        'team.member_add',
        { type: 'team', id },
        { user_id: userId, email: user.email },
      );
    }
  }

  async removeMember(by: AuditActor, id: number, userId: number): Promise<void> {
    await this.found(id);
    if (!(await this.teams.removeMember(id, userId)))
      throw new NotFoundError('member not found in this team');
    await this.audit.record(by, 'team.member_remove', { type: 'team', id }, { user_id: userId });
  }

  async addProject(by: AuditActor, id: number, projectId: number): Promise<void> {
    await this.found(id);
    const project = await this.projects.findOrFail(projectId);
    if (await this.teams.addProject(id, projectId)) {
      await this.audit.record(
        by,
        'team.project_add',
        { type: 'team', id },
        { project_id: projectId, project: project.slug },
      );
    }
  }

  async removeProject(by: AuditActor, id: number, projectId: number): Promise<void> {
    await this.found(id);
    if (!(await this.teams.removeProject(id, projectId)))
      throw new NotFoundError('project not found in this team');
    await this.audit.record(by, 'team.project_remove', { type: 'team', id }, { project_id: projectId });
  }

  private async found(id: number): Promise<TeamRow> {
    const team = await this.teams.find(id);
    if (!team) throw new NotFoundError('team not found');
    return team;
  }
}

function toTeamView(row: TeamRow): TeamView {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    created_at: row.created_at.toISOString(),
    member_ids: row.member_ids,
    project_ids: row.project_ids,
  };
}
