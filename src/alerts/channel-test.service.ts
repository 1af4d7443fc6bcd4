import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ChannelsService } from '../channels/channels.service';
import { AppConfig } from '../config/app-config';
import { buildTestNotification } from './alert-notification';
import { AlertSenders } from './senders/alert-senders';
import { deliveryErrorMessage } from './senders/delivery-error';
import type { ChannelTestResult } from './dto/channel-test.response';

export type { ChannelTestResult };

/**
 * Sends a labelled test message through a channel, synchronously, and reports the receiver's answer
 * by its status only: a receiver's body (or reason phrase) may echo the request, secret headers and
 * URL included, and this endpoint must not become a way to read a channel's secrets back.
 * A test works on disabled channels too (check a channel before enabling it). It leaves the channel's
 * counters (`failure_count`, `last_success_at`) and the alert history alone: those describe real
 * notifications, and an operator probing a broken receiver should not change them.
 */
@Injectable()
export class ChannelTestService {
  constructor(
    private readonly channels: ChannelsService,
    private readonly senders: AlertSenders,
    private readonly config: AppConfig,
  ) {}

  async test(channelId: number): Promise<ChannelTestResult> {
    const channel = await this.channels.findOrFail(channelId);
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
