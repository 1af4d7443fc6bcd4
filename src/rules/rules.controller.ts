import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ProjectsService } from '../projects/projects.service';
import { CreateRuleDto } from './dto/create-rule.dto';
import { UpdateRuleDto } from './dto/update-rule.dto';
import { RulesService, RuleView } from './rules.service';

/** Lists are bare arrays here (no `data` wrapper), as the spec shows for rules. */
@ApiTags('alert-rules')
@ApiBearerAuth()
@Controller('api/projects/:projectId/alert-rules')
export class RulesController {
  constructor(
    private readonly rules: RulesService,
    private readonly projects: ProjectsService,
  ) {}

  @Get()
  async list(@Param('projectId', new IdPipe('project_id')) projectId: number): Promise<RuleView[]> {
    await this.projects.findOrFail(projectId);
    return this.rules.list(projectId);
  }

  @Get(':ruleId')
  async get(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('ruleId', new IdPipe('rule_id')) ruleId: number,
  ): Promise<RuleView> {
    await this.projects.findOrFail(projectId);
    return this.rules.get(projectId, ruleId);
  }

  @Post()
  async create(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Body() body: CreateRuleDto,
  ): Promise<RuleView> {
    await this.projects.findOrFail(projectId);
    return this.rules.create(projectId, body);
  }

  @Patch(':ruleId')
  async update(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('ruleId', new IdPipe('rule_id')) ruleId: number,
    @Body() body: UpdateRuleDto,
  ): Promise<RuleView> {
    await this.projects.findOrFail(projectId);
    return this.rules.update(projectId, ruleId, body);
  }

  @Delete(':ruleId')
  @HttpCode(204)
  async remove(
    @Param('projectId', new IdPipe('project_id')) projectId: number,
    @Param('ruleId', new IdPipe('rule_id')) ruleId: number,
  ): Promise<void> {
    await this.projects.findOrFail(projectId);
    await this.rules.remove(projectId, ruleId);
  }
}
