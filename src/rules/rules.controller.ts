import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ProjectsService } from '../projects/projects.service';
import { CreateRuleDto } from './dto/create-rule.dto';
import { UpdateRuleDto } from './dto/update-rule.dto';
import { RulesService } from './rules.service';
import { RuleView } from './dto/rule.response';
import { ApiErrors } from '../http/api-responses';
import { Requires } from '../access/route-access.decorator';
import { Actor } from '../audit/actor.decorator';
import { AuditActor, AuditLog } from '../audit/audit-log.service';

/** Lists are bare arrays here (no `data` wrapper), as the spec shows for rules. */
@ApiTags('alert-rules')
@ApiBearerAuth()
@Controller('api/projects/:projectId/alert-rules')
export class RulesController {
  constructor(
    private readonly rules: RulesService,
    private readonly projects: ProjectsService,
    private readonly audit: AuditLog,
  ) {}

  @Get()
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({ type: [RuleView] })
  @ApiErrors(400)
  async list(@Param('projectId', new IdPipe('project_id')) projectId: number): Promise<RuleView[]> {
    await this.projects.findOrFail(projectId);
    return this.rules.list(projectId);
  }

  @Get(':ruleId')
  @Requires('project:read', { projectId: 'projectId' })
  @ApiOkResponse({ type: RuleView })
  @ApiErrors(400)
  async get(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('ruleId', new IdPipe('rule_id')) ruleId: number,
  ): Promise<RuleView> {
    await this.projects.findOrFail(projectId);
    return this.rules.get(projectId, ruleId);
  }

  @Post()
  @Requires('project:write', { projectId: 'projectId' })
  @ApiCreatedResponse({ type: RuleView })
  @ApiErrors(400)
  async create(
    @Actor() actor: AuditActor,
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Body() body: CreateRuleDto,
  ): Promise<RuleView> {
    await this.projects.findOrFail(projectId);
    const created = await this.rules.create(projectId, body);
    await this.audit.record(
      actor,
      'rule.create',
      { type: 'rule', id: created.id },
      {
        project_id: projectId,
        name: created.name,
      },
    );
    return created;
  }

  @Patch(':ruleId')
  @Requires('project:write', { projectId: 'projectId' })
  @ApiOkResponse({ type: RuleView })
  @ApiErrors(400)
  async update(
    @Actor() actor: AuditActor,
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('ruleId', new IdPipe('rule_id')) ruleId: number,
    @Body() body: UpdateRuleDto,
  ): Promise<RuleView> {
    await this.projects.findOrFail(projectId);
    const updated = await this.rules.update(projectId, ruleId, body);
    await this.audit.record(
      actor,
      'rule.update',
      { type: 'rule', id: ruleId },
      {
        project_id: projectId,
        changed: Object.keys(body),
      },
    );
    return updated;
  }

  @Delete(':ruleId')
  @Requires('project:write', { projectId: 'projectId' })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400)
  async remove(
    @Actor() actor: AuditActor,
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('ruleId', new IdPipe('rule_id')) ruleId: number,
  ): Promise<void> {
    await this.projects.findOrFail(projectId);
    await this.rules.remove(projectId, ruleId);
    await this.audit.record(actor, 'rule.delete', { type: 'rule', id: ruleId }, { project_id: projectId });
  }
}
