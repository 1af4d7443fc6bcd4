import { Injectable } from '@nestjs/common';
import { createTransport } from 'nodemailer';
import { AppConfig } from '../config/app-config';

const SMTP_TIMEOUT_MS = 10_000;

/** A transport for one message to the operator's SMTP server (none is kept open between messages). */
export function smtpTransport(url: string, timeoutMs = SMTP_TIMEOUT_MS) {
  return createTransport({
    url,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs * 2,
  });
}

export interface PersonalMail {
  to: string;
  subject: string;
  text: string;
}

/**
 * E-mails to one person (an invitation, an assignment), through the operator's SMTP settings.
 * Alerts to channels have their own sender, with retries and history.
 */
@Injectable()
export class Mailer {
  constructor(private readonly config: AppConfig) {}

  get configured(): boolean {
    return this.config.SMTP_URL !== undefined;
  }

  /** Sends it; throws when the SMTP server cannot be reached or refuses it. */
  async send(mail: PersonalMail): Promise<void> {
    if (!this.config.SMTP_URL) throw new Error('SMTP_URL is not configured');
    const transport = smtpTransport(this.config.SMTP_URL);
    try {
      await transport.sendMail({
        from: this.config.SMTP_FROM,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
    } finally {
      transport.close();
    }
  }
}
