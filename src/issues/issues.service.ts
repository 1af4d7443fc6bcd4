import { Injectable, NotFoundException } from '@nestjs/common';
import type { AlertTrigger } from '../alerts/alert-trigger';
import { AlertTriggerProducer } from '../alerts/alert-trigger.producer';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, SelectQueryBuilder } from 'typeorm';
import { DEFAULT_PAGE_SIZE, decodeCursor, Page, toPage } from '../common/pagination';
import { Project } from '../projects/project.entity';
import { Issue, IssueState } from './issue.entity';

export interface IssueView {
  id: number;
  project_id: number;
  short_id: string;
  type: string;
  message: string;
  culprit: string;
  level: string;
  state: IssueState;
  event_count: number;
  first_seen: string;
  last_seen: string;
  resolved_at: string | null;
  last_regressed_at: string | null;
  regression_count: number;
}

export interface StateChange {
  issue: IssueView;
  previousState: IssueState;
}

export function shortId(slug: string, number: number): string {
  return `${slug.toUpperCase()}-${number}`;
}

@Injectable()
export class IssuesService {
  constructor(
    @InjectRepository(Issue) private readonly issues: Repository<Issue>,
    private readonly alertTriggers: AlertTriggerProducer,
  ) {}

  async listForProject(
    projectId: number,
    options: { state?: IssueState; limit?: number; cursor?: string },
  ): Promise<Page<IssueView>> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    const cursor = decodeCursor(options.cursor);
    const query = this.withSlug().where('issue.project_id = :projectId', { projectId });
    if (options.state) query.andWhere('issue.state = :state', { state: options.state });
    if (cursor) {
      query.andWhere('(issue.last_seen, issue.id) < (:at, :id)', { at: cursor.at, id: Number(cursor.id) });
    }
    const { entities, raw } = await query
      .orderBy('issue.last_seen', 'DESC')
      .addOrderBy('issue.id', 'DESC')
      .limit(limit + 1)
      .getRawAndEntities<{ slug: string }>();
    const rows = entities.map((issue, index) => ({ issue, slug: raw[index].slug }));
    return toPage(
      rows,
      limit,
      (row) => ({ at: row.issue.lastSeen, id: row.issue.id }),
      (row) => toIssueView(row.issue, row.slug),
    );
  }

  async get(id: number): Promise<IssueView> {
    const { entities, raw } = await this.withSlug()
      .where('issue.id = :id', { id })
      .getRawAndEntities<{ slug: string }>();
    if (!entities[0]) throw new NotFoundException('issue not found');
    return toIssueView(entities[0], raw[0].slug);
  }

  /**
   * Sets the state a user chose. The row is locked so that a concurrent digest (which may reopen a
   * resolved issue) and this change are applied one after the other, and the previous state is exact.
   * An `unmute` trigger is recorded in the same transaction and published after it.
   */
  async setState(id: number, state: IssueState): Promise<StateChange> {
    const { previousState, triggers } = await this.issues.manager.transaction(async (manager) => {
      const current = await manager
        .createQueryBuilder(Issue, 'issue')
        .setLock('pessimistic_write')
        .where('issue.id = :id', { id })
        .getOne();
      if (!current) throw new NotFoundException('issue not found');
      if (current.state !== state) {
        const now = new Date();
        await manager.update(
          Issue,
          { id },
          {
            state,
            resolvedAt: state === 'resolved' ? now : current.resolvedAt,
            mutedAt: state === 'muted' ? now : null,
          },
        );
      }
      // Taking an issue out of `muted` is what `unmute` rules react to.
      const unmuted = current.state === 'muted' && state !== 'muted';
      const unmute: AlertTrigger = {
        alertType: 'unmute',
        projectId: current.projectId,
        issueId: id,
        occurredAt: new Date().toISOString(),
      };
      return {
        previousState: current.state,
        triggers: await this.alertTriggers.record(manager, unmuted ? [unmute] : []),
      };
    });
    await this.alertTriggers.publish(triggers);
    return { issue: await this.get(id), previousState };
  }

  async remove(id: number): Promise<void> {
    const result = await this.issues.delete({ id });
    if (!result.affected) throw new NotFoundException('issue not found');
  }

  private withSlug(): SelectQueryBuilder<Issue> {
    return this.issues
      .createQueryBuilder('issue')
      .innerJoin(Project, 'project', 'project.id = issue.project_id')
      .addSelect('project.slug', 'slug');
  }
}

export function toIssueView(issue: Issue, slug: string): IssueView {
  return {
    id: issue.id,
    project_id: issue.projectId,
    short_id: shortId(slug, issue.number),
    type: issue.type,
    message: issue.message,
    culprit: issue.culprit,
    level: issue.level,
    state: issue.state,
    event_count: issue.eventCount,
    first_seen: issue.firstSeen.toISOString(),
    last_seen: issue.lastSeen.toISOString(),
    resolved_at: issue.resolvedAt?.toISOString() ?? null,
    last_regressed_at: issue.lastRegressedAt?.toISOString() ?? null,
    regression_count: issue.regressionCount,
  };
}
