import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { NotFoundError } from '../common/domain-errors';
import {
  maskConfig,
  rejectMaskedSecrets,
  restoreMaskedSecrets,
  validateChannelConfig,
} from './channel-config';
import { ChannelType, NotificationChannel } from './channel.entity';
import type { CreateChannelDto } from './dto/create-channel.dto';
import type { UpdateChannelDto } from './dto/update-channel.dto';
import type { ChannelView } from './dto/channel.response';

export type { ChannelView };

/** Delivery errors can be long (HTML error pages): what is kept for display is bounded. */
const MAX_ERROR_LENGTH = 1_000;

function checkedConfig(type: ChannelType, config: unknown): Record<string, unknown> {
  return { ...validateChannelConfig(type, config) };
}

@Injectable()
export class ChannelsService {
  constructor(
    @InjectRepository(NotificationChannel) private readonly channels: Repository<NotificationChannel>,
  ) {}

  async list(): Promise<ChannelView[]> {
    const all = await this.channels.find({ order: { id: 'ASC' } });
    return all.map(toChannelView);
  }

  async get(id: number): Promise<ChannelView> {
    return toChannelView(await this.findOrFail(id));
  }

  /** The stored channel with its unmasked config (for delivery). */
  async findOrFail(id: number): Promise<NotificationChannel> {
    const channel = await this.channels.findOne({ where: { id } });
    if (!channel) throw new NotFoundError('channel not found');
    return channel;
  }

  /** Stored channels among `ids` (missing ids are simply absent), ordered by id, configs unmasked. */
  findByIds(ids: readonly number[]): Promise<NotificationChannel[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.channels.find({ where: { id: In([...new Set(ids)]) }, order: { id: 'ASC' } });
  }

  async create(body: CreateChannelDto): Promise<ChannelView> {
    rejectMaskedSecrets(body.config);
    const config = checkedConfig(body.channel_type, body.config);
    const saved = await this.channels.save(
      this.channels.create({
        name: body.name.trim(),
        channelType: body.channel_type,
        config,
        isEnabled: body.is_enabled ?? true,
      }),
    );
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
    const result = await this.channels.delete({ id });
    if (!result.affected) throw new NotFoundError('channel not found');
  }

  /** A delivery succeeded: the failure streak ends. */
  async recordSuccess(id: number, at = new Date()): Promise<void> {
    await this.channels.update({ id }, { failureCount: 0, lastSuccessAt: at, lastError: null });
  }

  /** A delivery failed (after its last attempt or on each attempt, as the caller decides). */
  async recordFailure(id: number, error: string, at = new Date()): Promise<void> {
    await this.channels
      .createQueryBuilder()
      .update(NotificationChannel)
      .set({
        failureCount: () => 'failure_count + 1',
        lastFailureAt: at,
        lastError: error.slice(0, MAX_ERROR_LENGTH),
      })
      .where('id = :id', { id })
      .execute();
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
