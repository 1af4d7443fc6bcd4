import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ChannelsService } from './channels.service';
import { ChannelView } from './dto/channel.response';
import { ApiErrors } from '../http/api-responses';
import { CreateChannelDto } from './dto/create-channel.dto';
import { UpdateChannelDto } from './dto/update-channel.dto';
import { Requires } from '../access/route-access.decorator';
import { Actor } from '../audit/actor.decorator';
import { AuditActor, AuditLog } from '../audit/audit-log.service';

/** Lists are bare arrays here (no `data` wrapper), as the spec shows for channels. */
@ApiTags('alert-channels')
@ApiBearerAuth()
@Controller('api/alert-channels')
export class ChannelsController {
  constructor(
    private readonly channels: ChannelsService,
    private readonly audit: AuditLog,
  ) {}

  @Get()
  @Requires('channels:read')
  @ApiOkResponse({ type: [ChannelView] })
  list(): Promise<ChannelView[]> {
    return this.channels.list();
  }

  @Get(':id')
  @Requires('channels:read')
  @ApiOkResponse({ type: ChannelView })
  @ApiErrors(400, 404)
  get(@Param('id', IdPipe) id: number): Promise<ChannelView> {
    return this.channels.get(id);
  }

  @Post()
  @Requires('channels:admin')
  @ApiCreatedResponse({ type: ChannelView })
  @ApiErrors(400)
  async create(@Actor() actor: AuditActor, @Body() body: CreateChannelDto): Promise<ChannelView> {
    const created = await this.channels.create(body);
    await this.audit.record(
      actor,
      'channel.create',
      { type: 'channel', id: created.id },
      {
        name: created.name,
        type: created.channel_type,
      },
    );
    return created;
  }

  @Patch(':id')
  @Requires('channels:admin')
  @ApiOkResponse({ type: ChannelView })
  @ApiErrors(400, 404)
  async update(
    @Actor() actor: AuditActor,
    @Param('id', IdPipe) id: number,
    @Body() body: UpdateChannelDto,
  ): Promise<ChannelView> {
    const updated = await this.channels.update(id, body);
    // The names of what changed, not the values: a channel's config may hold secrets.
    await this.audit.record(actor, 'channel.update', { type: 'channel', id }, { changed: Object.keys(body) });
    return updated;
  }

  @Delete(':id')
  @Requires('channels:admin')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400, 404)
  async remove(@Actor() actor: AuditActor, @Param('id', IdPipe) id: number): Promise<void> {
    await this.channels.remove(id);
    await this.audit.record(actor, 'channel.delete', { type: 'channel', id });
  }
}
