import { Injectable } from '@nestjs/common';
import type { NotificationChannel } from '../../channels/channel.entity';
import {
  AnyAlertNotification,
  isQuotaNotification,
  isReleaseHealthNotification,
  isSpikeNotification,
} from '../alert-notification';
import { quotaWebhookPayload } from './quota-payloads';
import type { AlertSender } from './alert-sender';
import { DeliveryError } from './delivery-error';
import { OutboundHttp, requireSuccess } from './outbound-http';
import { webhookHeaders, webhookPayload } from './payloads';
import { releaseHealthWebhookPayload } from './release-health-payloads';
import { spikeWebhookPayload } from './spike-payloads';

/** POSTs the JSON payload to `config.url`, signed with `config.secret` when there is one. */
@Injectable()
export class WebhookSender implements AlertSender {
  constructor(private readonly http: OutboundHttp) {}

  async send(
    channel: NotificationChannel,
    notification: AnyAlertNotification,
    idempotencyKey: string,
  ): Promise<string> {
    const { url, secret, headers } = channel.config as { url?: unknown; secret?: unknown; headers?: unknown };
    if (typeof url !== 'string' || url === '')
      throw new DeliveryError('webhook channel has no config.url', true);
    const body = JSON.stringify(
      isQuotaNotification(notification)
        ? quotaWebhookPayload(notification)
        : isSpikeNotification(notification)
        ? spikeWebhookPayload(notification)
        : isReleaseHealthNotification(notification)
          ? releaseHealthWebhookPayload(notification)
          : webhookPayload(notification),
    );
    const response = await this.http.post({
      url,
      label: 'webhook',
      body,
      headers: webhookHeaders(
        notification,
        body,
        idempotencyKey,
        typeof secret === 'string' ? secret : undefined,
        stringRecord(headers),
      ),
    });
    return requireSuccess('webhook', response);
  }
}

/** Only string-valued, single-line headers are passed on (the channels API validates them too). */
function stringRecord(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const result: Record<string, string> = {};
  for (const [name, header] of Object.entries(value)) {
    if (
      typeof header === 'string' &&
      !/[\r\n\0]/.test(header) &&
      /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)
    ) {
      result[name] = header;
    }
  }
  return result;
}
