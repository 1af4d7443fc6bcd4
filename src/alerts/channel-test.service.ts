import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { NotificationChannel } from '../channels/channel.entity';
import { AppConfig } from '../config/app-config';
import { buildTestNotification } from './alert-notification';
import { AlertSenders } from './senders/alert-senders';
import { deliveryErrorMessage } from './senders/delivery-error';

export interface ChannelTestResult {
  success: boolean;
  message: string;
}

/**
 * Sends a labelled test message through a channel, synchronously, and reports the receiver's answer.
 * A test works on disabled channels too (check a channel before enabling it). It leaves the channel's
 * counters (`failure_count`, `last_success_at`) and the alert history alone: those describe real
 * notifications, and an operator probing a broken receiver should not change them.
 */
@Injectable()
export class ChannelTestService {
  constructor(
    @InjectRepository(NotificationChannel) private readonly channels: Repository<NotificationChannel>,
    private readonly senders: AlertSenders,
    private readonly config: AppConfig,
  ) {}

  async test(channelId: number): Promise<ChannelTestResult> {
    const channel = await this.channels.findOne({ where: { id: channelId } });
    if (!channel) throw new NotFoundException('channel not found');
    try {
      const message = await this.senders.send(
        channel,
        buildTestNotification(this.config.publicUrl),
        `test-${randomUUID()}`,
      );
      return { success: true, message };
    } catch (error) {
      return { success: false, message: deliveryErrorMessage(error) };
    }
  }
}
