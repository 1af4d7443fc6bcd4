import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { ChannelType, NotificationChannel } from './channel.entity';

/** The notification_channels table: every statement on channels is here. Configs are stored unmasked. */
@Injectable()
export class ChannelsRepository {
  constructor(
    @InjectRepository(NotificationChannel) private readonly channels: Repository<NotificationChannel>,
  ) {}

  list(): Promise<NotificationChannel[]> {
    return this.channels.find({ order: { id: 'ASC' } });
  }

  findById(id: number): Promise<NotificationChannel | null> {
    return this.channels.findOne({ where: { id } });
  }

  /** Channels among `ids` (missing ids are simply absent), ordered by id. */
  findByIds(ids: readonly number[]): Promise<NotificationChannel[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.channels.find({ where: { id: In([...new Set(ids)]) }, order: { id: 'ASC' } });
  }

  insert(channel: {
    name: string;
    channelType: ChannelType;
    config: Record<string, unknown>;
    isEnabled: boolean;
  }): Promise<NotificationChannel> {
    return this.channels.save(this.channels.create(channel));
  }

  save(channel: NotificationChannel): Promise<NotificationChannel> {
    return this.channels.save(channel);
  }

  /** False when there was no such channel. */
  async delete(id: number): Promise<boolean> {
    const result = await this.channels.delete({ id });
    return Boolean(result.affected);
  }

  /** A notification went out through the channel: its run of consecutive failures ends. */
  async recordDeliverySuccess(manager: EntityManager, id: number): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(NotificationChannel)
      .set({ failureCount: 0, lastSuccessAt: () => 'now()' })
      .where('id = :id', { id })
      .execute();
  }

  /** A notification through the channel was given up: one more consecutive failure. */
  async recordDeliveryFailure(manager: EntityManager, id: number, error: string): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(NotificationChannel)
      .set({ failureCount: () => 'failure_count + 1', lastFailureAt: () => 'now()', lastError: error })
      .where('id = :id', { id })
      .execute();
  }
}
