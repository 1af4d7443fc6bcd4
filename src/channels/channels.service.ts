import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/domain-errors';
import {
  maskConfig,
  rejectMaskedSecrets,
  restoreMaskedSecrets,
  validateChannelConfig,
} from './channel-config';
import type { ChannelType, NotificationChannel } from './channel.entity';
import { ChannelsRepository } from './channels.repository';
import type { CreateChannelDto } from './dto/create-channel.dto';
import type { UpdateChannelDto } from './dto/update-channel.dto';
import type { ChannelView } from './dto/channel.response';

export type { ChannelView };

function checkedConfig(type: ChannelType, config: unknown): Record<string, unknown> {
  return { ...validateChannelConfig(type, config) };
}

@Injectable()
export class ChannelsService {
  constructor(private readonly channels: ChannelsRepository) {}

  async list(): Promise<ChannelView[]> {
    const all = await this.channels.list();
    return all.map(toChannelView);
  }

  async get(id: number): Promise<ChannelView> {
    return toChannelView(await this.findOrFail(id));
  }

  /** The stored channel with its unmasked config (for delivery). */
  async findOrFail(id: number): Promise<NotificationChannel> {
    const channel = await this.channels.findById(id);
    if (!channel) throw new NotFoundError('channel not found');
    return channel;
  }

  /** Stored channels among `ids` (missing ids are simply absent), ordered by id, configs unmasked. */
  findByIds(ids: readonly number[]): Promise<NotificationChannel[]> {
    return this.channels.findByIds(ids);
  }

  async create(body: CreateChannelDto): Promise<ChannelView> {
    rejectMaskedSecrets(body.config);
    const config = checkedConfig(body.channel_type, body.config);
    const saved = await this.channels.insert({
      name: body.name.trim(),
      channelType: body.channel_type,
      config,
      isEnabled: body.is_enabled ?? true,
    });
    return toChannelView(saved);
  }

  async update(id: number, body: UpdateChannelDto): Promise<ChannelView> {
    const channel = await this.findOrFail(id);
    if (body.name !== undefined) channel.name = body.name.trim();
    if (body.is_enabled !== undefined) channel.isEnabled = body.is_enabled;
    if (body.config !== undefined) {
      channel.config = checkedConfig(channel.channelType, restoreMaskedSecrets(body.config, channel.config));
    }
    return toChannelView(await this.channels.save(channel));
  }

  async remove(id: number): Promise<void> {
    if (!(await this.channels.delete(id))) throw new NotFoundError('channel not found');
  }
}

export function toChannelView(channel: NotificationChannel): ChannelView {
  return {
    id: channel.id,
    name: channel.name,
    channel_type: channel.channelType,
    config: maskConfig(channel.config),
    is_enabled: channel.isEnabled,
    failure_count: channel.failureCount,
    last_success_at: channel.lastSuccessAt?.toISOString() ?? null,
    last_error: channel.lastError,
    created_at: channel.createdAt.toISOString(),
  };
}
