import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { smtpTransport } from '../../mail/mailer';
import type { NotificationChannel } from '../../channels/channel.entity';
import { AppConfig } from '../../config/app-config';
import {
  AnyAlertNotification,
  isQuotaNotification,
  isReleaseHealthNotification,
  isSpikeNotification,
} from '../alert-notification';
import { quotaEmailHtml, quotaEmailSubject, quotaEmailText } from './quota-payloads';
import { spikeEmailHtml, spikeEmailSubject, spikeEmailText } from './spike-payloads';
import type { AlertSender } from './alert-sender';
import { DeliveryError, deliveryErrorMessage } from './delivery-error';
import { OUTBOUND_TIMEOUT_MS } from './outbound-http';
import { emailHtml, emailSubject, emailText } from './payloads';
import {
  releaseHealthEmailHtml,
  releaseHealthEmailSubject,
  releaseHealthEmailText,
} from './release-health-payloads';

interface SendInfo {
  accepted?: Array<string | { address: string }>;
  rejected?: Array<string | { address: string }>;
  response?: string;
}

/**
 * SMTP through nodemailer (`SMTP_URL`, `SMTP_FROM`). The SMTP server is the operator's own
 * configuration, not a user-supplied URL, so the private-network guard does not apply to it.
 * A transport per message: alerts are rare, and no idle connection is kept open to the server.
 */
@Injectable()
export class EmailSender implements AlertSender {
  constructor(private readonly config: AppConfig) {}

  async send(
    channel: NotificationChannel,
    notification: AnyAlertNotification,
    idempotencyKey: string,
  ): Promise<string> {
    if (!this.config.SMTP_URL) throw new DeliveryError('SMTP_URL is not configured', true);
    const to = recipients(channel.config);
    if (to.length === 0) throw new DeliveryError('email channel has no recipients in config.to', true);
    const transport = smtpTransport(this.config.SMTP_URL, OUTBOUND_TIMEOUT_MS);
    try {
      const info = (await transport.sendMail({
        from: this.config.SMTP_FROM,
        to,
        ...emailContent(notification),
        // The same notification retried keeps its Message-ID, so mail systems can drop the duplicate.
        messageId: messageId(idempotencyKey, this.config.SMTP_FROM),
        headers: {
          'X-Idempotency-Key': idempotencyKey,
          'X-Alert-Type': notification.alertType,
          'Auto-Submitted': 'auto-generated',
        },
      })) as SendInfo;
      const accepted = (info.accepted ?? []).map(address);
      if (accepted.length === 0) {
        throw new DeliveryError(
          `SMTP server accepted none of the recipients (${info.response ?? 'no answer'})`,
        );
      }
      const rejected = (info.rejected ?? []).map(address);
      const partly = rejected.length > 0 ? `; rejected: ${rejected.join(', ')}` : '';
      return `email accepted by the SMTP server for ${accepted.join(', ')}${partly}`;
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      throw new DeliveryError(`email could not be sent: ${deliveryErrorMessage(error)}`);
    } finally {
      transport.close();
    }
  }
}

function emailContent(notification: AnyAlertNotification): { subject: string; text: string; html: string } {
  if (isQuotaNotification(notification)) {
    return {
      subject: quotaEmailSubject(notification),
      text: quotaEmailText(notification),
      html: quotaEmailHtml(notification),
    };
  }
  if (isSpikeNotification(notification)) {
    return {
      subject: spikeEmailSubject(notification),
      text: spikeEmailText(notification),
      html: spikeEmailHtml(notification),
    };
  }
  return isReleaseHealthNotification(notification)
    ? {
        subject: releaseHealthEmailSubject(notification),
        text: releaseHealthEmailText(notification),
        html: releaseHealthEmailHtml(notification),
      }
    : { subject: emailSubject(notification), text: emailText(notification), html: emailHtml(notification) };
}

function recipients(config: Record<string, unknown>): string[] {
  const to = config.to;
  const list = Array.isArray(to) ? to : typeof to === 'string' ? [to] : [];
  return list.filter((entry): entry is string => typeof entry === 'string' && entry.trim() !== '');
}

function address(entry: string | { address: string }): string {
  return typeof entry === 'string' ? entry : entry.address;
}

/** `<key@domain of SMTP_FROM>`: a Message-ID must be globally unique and look like an address. */
export function messageId(idempotencyKey: string, from: string): string {
  const domain = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? 'error-tracker.invalid';
  const local = /^[A-Za-z0-9._-]+$/.test(idempotencyKey)
    ? idempotencyKey
    : createHash('sha256').update(idempotencyKey).digest('hex');
  return `<${local}@${domain}>`;
}
