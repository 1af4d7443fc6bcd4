import { Module } from '@nestjs/common';
import { AlertSenders } from './alert-senders';
import { ChatSender } from './chat.sender';
import { EmailSender } from './email.sender';
import { OutboundHttp } from './outbound-http';
import { WebhookSender } from './webhook.sender';

/** The transports, shared by the delivery worker and the API's test endpoint. */
@Module({
  providers: [OutboundHttp, WebhookSender, EmailSender, ChatSender, AlertSenders],
  exports: [AlertSenders],
})
export class AlertSendersModule {}
