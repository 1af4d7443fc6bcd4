import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Req } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { Access, CurrentAccess, seesProject } from '../access/access';
import { Requires } from '../access/route-access.decorator';
import { actorOf } from '../audit/audit-log.service';
import { IdPipe } from '../common/id.pipes';
import { TeamNameDto, UpdateMemberDto } from './dto/members.dto';
import { MembersService } from './members.service';
import { TeamsService } from './teams.service';
import { MemberView, TeamView } from './dto/member.response';
import { ApiErrors, ListOf } from '../http/api-responses';

@ApiTags('members')
@ApiBearerAuth()
@Controller('api/members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  /** Everyone may see who is on the tracker (to assign issues, to mention them). */
  @Get()
  @Requires('members:read')
  @ApiOkResponse({ type: ListOf(MemberView) })
  async list(): Promise<{ data: MemberView[] }> {
    return { data: await this.members.list() };
  }

  @Get(':id')
  @Requires('members:read')
  @ApiOkResponse({ type: MemberView })
  @ApiErrors(400, 404)
  get(@Param('id', IdPipe) id: number): Promise<MemberView> {
    return this.members.get(id);
  }

  /** `role`, `is_active` (false deactivates), `name`. */
  @Patch(':id')
  @Requires('members:admin')
  @ApiOkResponse({ type: MemberView })
  @ApiErrors(400, 404, [409, 'The change would leave no active owner.'])
  update(
    @CurrentAccess() access: Access,
    @Req() request: Request,
    @Param('id', IdPipe) id: number,
    @Body() body: UpdateMemberDto,
  ): Promise<MemberView> {
    return this.members.update(access, actorOf(access, request.ip), id, {
      role: body.role,
      isActive: body.is_active,
      name: body.name,
    });
  }
}

@ApiTags('members')
@ApiBearerAuth()
@Controller('api/teams')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  /** A team's projects are listed as far as the request sees them: others' existence stays hidden. */
  @Get()
  @Requires('members:read')
  @ApiOkResponse({ type: ListOf(TeamView) })
  async list(@CurrentAccess() access: Access): Promise<{ data: TeamView[] }> {
    return { data: (await this.teams.list()).map((team) => withVisibleProjects(team, access)) };
  }

  @Get(':id')
  @Requires('members:read')
  @ApiOkResponse({ type: TeamView })
  @ApiErrors(400, 404)
  async get(@CurrentAccess() access: Access, @Param('id', IdPipe) id: number): Promise<TeamView> {
    return withVisibleProjects(await this.teams.get(id), access);
  }

  @Post()
  @Requires('members:admin')
  @ApiCreatedResponse({ type: TeamView })
  @ApiErrors(400, [409, 'A team with the same slug exists.'])
  create(
    @CurrentAccess() access: Access,
    @Req() request: Request,
    @Body() body: TeamNameDto,
  ): Promise<TeamView> {
    return this.teams.create(actorOf(access, request.ip), body.name);
  }

  @Patch(':id')
  @Requires('members:admin')
  @ApiOkResponse({ type: TeamView, description: 'Renamed; the slug stays.' })
  @ApiErrors(400, 404)
  rename(
    @CurrentAccess() access: Access,
    @Req() request: Request,
    @Param('id', IdPipe) id: number,
    @Body() body: TeamNameDto,
  ): Promise<TeamView> {
    return this.teams.rename(actorOf(access, request.ip), id, body.name);
  }

  @Delete(':id')
  @HttpCode(204)
  @Requires('members:admin')
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400, 404)
  remove(@CurrentAccess() access: Access, @Req() request: Request, @Param('id', IdPipe) id: number) {
    return this.teams.remove(actorOf(access, request.ip), id);
  }

  @Put(':id/members/:userId')
  @HttpCode(204)
  @Requires('members:admin')
  @ApiNoContentResponse({ description: 'The member is in the team.' })
  @ApiErrors(400, 404)
  addMember(
    @CurrentAccess() access: Access,
    @Req() request: Request,
    @Param('id', IdPipe) id: number,
    @Param('userId', new IdPipe('user_id')) userId: number,
  ): Promise<void> {
    return this.teams.addMember(actorOf(access, request.ip), id, userId);
  }

  @Delete(':id/members/:userId')
  @HttpCode(204)
  @Requires('members:admin')
  @ApiNoContentResponse({ description: 'The member left the team.' })
  @ApiErrors(400, 404)
  removeMember(
    @CurrentAccess() access: Access,
    @Req() request: Request,
    @Param('id', IdPipe) id: number,
    @Param('userId', new IdPipe('user_id')) userId: number,
  ): Promise<void> {
    return this.teams.removeMember(actorOf(access, request.ip), id, userId);
  }

  @Put(':id/projects/:projectId')
  @HttpCode(204)
  @Requires('members:admin')
  @ApiNoContentResponse({ description: "The project is among the team's." })
  @ApiErrors(400, 404)
  addProject(
    @CurrentAccess() access: Access,
    @Req() request: Request,
    @Param('id', IdPipe) id: number,
    @Param('projectId', new IdPipe('project_id')) projectId: number,
  ): Promise<void> {
    return this.teams.addProject(actorOf(access, request.ip), id, projectId);
  }

  @Delete(':id/projects/:projectId')
  @HttpCode(204)
  @Requires('members:admin')
  @ApiNoContentResponse({ description: "The project is no longer among the team's." })
  @ApiErrors(400, 404)
  removeProject(
    @CurrentAccess() access: Access,
    @Req() request: Request,
    @Param('id', IdPipe) id: number,
    @Param('projectId', new IdPipe('project_id')) projectId: number,
  ): Promise<void> {
    return this.teams.removeProject(actorOf(access, request.ip), id, projectId);
  }
}

function withVisibleProjects(team: TeamView, access: Access): TeamView {
  return { ...team, project_ids: team.project_ids.filter((id) => seesProject(access, id)) };
}
