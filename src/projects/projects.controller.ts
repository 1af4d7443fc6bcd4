import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ProjectNameDto } from './dto/project-name.dto';
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

  @Patch(':id')
  rename(@Param('id', IdPipe) id: number, @Body() body: ProjectNameDto): Promise<ProjectView> {
    return this.projects.rename(id, body.name);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id', IdPipe) id: number): Promise<void> {
    await this.projects.remove(id);
  }
}
