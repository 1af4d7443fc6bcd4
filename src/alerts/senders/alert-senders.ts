import { Injectable } from '@nestjs/common';
import type { ChannelType, NotificationChannel } from '../../channels/channel.entity';
import type { AnyAlertNotification } from '../alert-notification';
import type { AlertSender } from './alert-sender';
import { ChatSender } from './chat.sender';
import { EmailSender } from './email.sender';
import { WebhookSender } from './webhook.sender';

/** Picks the sender of a channel's type; used by delivery jobs and by the test endpoint alike. */
@Injectable()
export class AlertSenders {
  constructor(
    private readonly webhook: WebhookSender,
    private readonly email: EmailSender,
    private readonly chat: ChatSender,
  ) {}

  send(
    channel: NotificationChannel,
    notification: AnyAlertNotification,
    idempotencyKey: string,
  ): Promise<string> {
    return this.forType(channel.channelType).send(channel, notification, idempotencyKey);
  }

  private forType(type: ChannelType): AlertSender {
    switch (type) {
      case 'webhook':
        return this.webhook;
      case 'email':
        return this.email;
      case 'chat':
        return this.chat;
    }
  }
}
