import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ProjectNameDto } from './dto/project-name.dto';
import { DEFAULT_GRACE_HOURS, RotateClientKeyDto } from './dto/rotate-client-key.dto';
import { UpdateProjectDto } from './dto/update-project.dto';
import { ProjectsService, ProjectView } from './projects.service';

@ApiTags('projects')
@ApiBearerAuth()
@Controller('api/projects')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  async list(): Promise<{ data: ProjectView[] }> {
    return { data: await this.projects.list() };
  }

  @Get(':id')
  get(@Param('id', IdPipe) id: number): Promise<ProjectView> {
    return this.projects.get(id);
  }

  @Post()
  create(@Body() body: ProjectNameDto): Promise<ProjectView> {
    return this.projects.create(body.name);
  }

  /** `name` renames (the slug stays); `retention_days` sets how long events are kept (null: the default). */
  @Patch(':id')
  update(@Param('id', IdPipe) id: number, @Body() body: UpdateProjectDto): Promise<ProjectView> {
    return this.projects.update(id, { name: body.name, retentionDays: body.retention_days });
  }

  /** A new client key (and DSN); the replaced key keeps ingesting for `grace_hours` (default 24). */
  @Post(':id/client-key/rotate')
  @HttpCode(200)
  rotateClientKey(@Param('id', IdPipe) id: number, @Body() body: RotateClientKeyDto): Promise<ProjectView> {
    return this.projects.rotateClientKey(id, body.grace_hours ?? DEFAULT_GRACE_HOURS);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id', IdPipe) id: number): Promise<void> {
    await this.projects.remove(id);
  }
}
