import { Injectable } from '@nestjs/common';
import type { NotificationChannel } from '../../channels/channel.entity';
import {
  AnyAlertNotification,
  isQuotaNotification,
  isReleaseHealthNotification,
  isSpikeNotification,
} from '../alert-notification';
import { quotaChatPayload } from './quota-payloads';
import type { AlertSender } from './alert-sender';
import { DeliveryError } from './delivery-error';
import { OutboundHttp, requireSuccess } from './outbound-http';
import { chatPayload, USER_AGENT } from './payloads';
import { releaseHealthChatPayload } from './release-health-payloads';
import { spikeChatPayload } from './spike-payloads';

/** Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat, Discord's `/slack` URLs). */
@Injectable()
export class ChatSender implements AlertSender {
  constructor(private readonly http: OutboundHttp) {}

  async send(
    channel: NotificationChannel,
    notification: AnyAlertNotification,
    idempotencyKey: string,
  ): Promise<string> {
    const { webhook_url: url } = channel.config as { webhook_url?: unknown };
    if (typeof url !== 'string' || url === '')
      throw new DeliveryError('chat channel has no config.webhook_url', true);
    const response = await this.http.post({
      url,
      label: 'chat webhook',
      body: JSON.stringify(
        isQuotaNotification(notification)
          ? quotaChatPayload(notification)
          : isSpikeNotification(notification)
          ? spikeChatPayload(notification)
          : isReleaseHealthNotification(notification)
            ? releaseHealthChatPayload(notification)
            : chatPayload(notification),
      ),
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        'X-Idempotency-Key': idempotencyKey,
      },
    });
    return requireSuccess('chat webhook', response);
  }
}
