import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ProjectsService } from '../projects/projects.service';
import { StatsQuery } from './dto/stats.query';
import { TagValuesQuery } from './dto/tag-values.query';
import { TagKeyPipe } from './tag-key.pipe';
import { EnvironmentRow, ProjectTagKey, TagValueRow } from './rollups.repository';
import { StatsService, StatsView } from './stats.service';
import { TagsService } from './tags.service';
import { Requires } from '../access/route-access.decorator';

/** Summaries of projects, read from the rollups the digest maintains (an issue's: IssueDetailsController). */
@ApiTags('stats')
@ApiBearerAuth()
@Controller('api')
export class RollupsController {
  constructor(
    private readonly stats: StatsService,
    private readonly tags: TagsService,
    private readonly projects: ProjectsService,
  ) {}

  /** Events per hour (`period=24h`) or per UTC day (`14d`, `90d`). */
  @Get('projects/:id/stats')
  @Requires('project:read', { projectId: 'id' })
  async projectStats(@Param('id', IdPipe) id: number, @Query() query: StatsQuery): Promise<StatsView> {
    await this.projects.findOrFail(id);
    return this.stats.stats('project', id, query);
  }

  /** The environments the project's events were sent from (within the retention), the busiest first. */
  @Get('projects/:id/environments')
  @Requires('project:read', { projectId: 'id' })
  async environments(@Param('id', IdPipe) id: number): Promise<{ data: EnvironmentRow[] }> {
    await this.projects.findOrFail(id);
    return { data: await this.stats.environments(id) };
  }

  /** The tag keys of the project's recent issues with their events: for search suggestions. */
  @Get('projects/:id/tags')
  @Requires('project:read', { projectId: 'id' })
  async projectTags(@Param('id', IdPipe) id: number): Promise<{ data: ProjectTagKey[] }> {
    await this.projects.findOrFail(id);
    return { data: await this.tags.projectKeys(id) };
  }

  /** The most frequent values of a tag of the project's recent issues, those starting with `query` if given. */
  @Get('projects/:id/tags/:key')
  @Requires('project:read', { projectId: 'id' })
  async projectTagValues(
    @Param('id', IdPipe) id: number,
    @Param('key', TagKeyPipe) key: string,
    @Query() query: TagValuesQuery,
  ): Promise<{ data: TagValueRow[] }> {
    await this.projects.findOrFail(id);
    return { data: await this.tags.projectValues(id, key, query.query) };
  }
}
