import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ChannelsService, ChannelView } from './channels.service';
import { CreateChannelDto } from './dto/create-channel.dto';
import { UpdateChannelDto } from './dto/update-channel.dto';

/** Lists are bare arrays here (no `data` wrapper), as the spec shows for channels. */
@ApiTags('alert-channels')
@ApiBearerAuth()
@Controller('api/alert-channels')
export class ChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Get()
  list(): Promise<ChannelView[]> {
    return this.channels.list();
  }

  @Get(':id')
  get(@Param('id', IdPipe) id: number): Promise<ChannelView> {
    return this.channels.get(id);
  }

  @Post()
  create(@Body() body: CreateChannelDto): Promise<ChannelView> {
    return this.channels.create(body);
  }

  @Patch(':id')
  update(@Param('id', IdPipe) id: number, @Body() body: UpdateChannelDto): Promise<ChannelView> {
    return this.channels.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id', IdPipe) id: number): Promise<void> {
    await this.channels.remove(id);
  }
}
