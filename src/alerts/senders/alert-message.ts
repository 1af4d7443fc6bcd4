/**
 * The parts every alert's e-mail and chat message are made of (pure). Each kind of alert (an issue,
 * a release's health, a spike) says what its parts are; the layouts of the e-mail and the
 * Slack-compatible chat message are written once, here.
 */

export const MAX_SUBJECT_LENGTH = 200;

export interface AlertMessage {
  /** The e-mail's first line. */
  intro: string;
  /** The e-mail's heading and the chat message's link text. */
  headline: string;
  /** Label and value rows of the e-mail. */
  facts: Array<[string, string]>;
  url: string;
  /** What the link leads to: `View the issue`. */
  linkLabel: string;
  chat: {
    /** The plain `text` line, before the link: what chat apps without blocks show. */
    summary: string;
    /** The line under the linked headline, in Slack mrkdwn (the builder escapes its own values). */
    lead: string;
    /** Label and plain value of the fields block. */
    fields: Array<[string, string]>;
    /** The small print under the fields, plain. */
    context?: string;
  };
}

/**
 * What one kind of alert (an issue, a release's health, a spike) says in every channel: its e-mail
 * subject, its message, and its own field of the webhook body. payloads.ts picks the kind's format.
 */
export interface AlertFormat<N> {
  subject(notification: N): string;
  message(notification: N): AlertMessage;
  /** The webhook body's field of this kind (`issue`, `release` or `spike`), between `project` and `url`. */
  webhookFields(notification: N): Record<string, unknown>;
}

export interface ChatPayload {
  text: string;
  blocks: Array<Record<string, unknown>>;
}

/** One line, at most `max` characters, ending in an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Slack mrkdwn treats `&`, `<` and `>` as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function messageEmailText(message: AlertMessage): string {
  const lines = [message.intro, ''];
  for (const [label, value] of message.facts) lines.push(`${label}: ${value}`);
  lines.push('', `${message.linkLabel}: ${message.url}`, '', '-- ', 'Sent by error-tracker');
  return lines.join('\n');
}

export function messageEmailHtml(message: AlertMessage): string {
  const rows = message.facts
    .map(
      ([label, value]) =>
        `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(label)}</th>` +
        `<td style="padding:2px 0">${escapeHtml(value)}</td></tr>`,
    )
    .join('\n');
  return [
    '<!doctype html>',
    '<html><body style="font-family:sans-serif">',
    `<p>${escapeHtml(message.intro)}</p>`,
    `<h2 style="font-size:16px">${escapeHtml(message.headline)}</h2>`,
    `<table>\n${rows}\n</table>`,
    `<p><a href="${escapeHtml(message.url)}">${escapeHtml(message.linkLabel)}</a></p>`,
    '<p style="color:#888">Sent by error-tracker</p>',
    '</body></html>',
  ].join('\n');
}

/**
 * Slack-compatible incoming-webhook message. `text` is a complete line with a bare link: it is all
 * that Mattermost, Rocket.Chat and Discord's `/slack` endpoints need to render, and it is Slack's
 * notification fallback. `blocks` is the richer Slack layout.
 */
export function messageChatPayload(message: AlertMessage): ChatPayload {
  const headline = truncate(message.headline, 150);
  const blocks: ChatPayload['blocks'] = [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*<${message.url}|${escapeMrkdwn(headline)}>*\n${message.chat.lead}` },
    },
    {
      type: 'section',
      fields: message.chat.fields.map(([label, value]) => ({
        type: 'mrkdwn',
        text: `*${escapeMrkdwn(label)}*\n${escapeMrkdwn(value)}`,
      })),
    },
  ];
  if (message.chat.context !== undefined) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: escapeMrkdwn(message.chat.context) }],
    });
  }
  return { text: `${message.chat.summary} ${message.url}`, blocks };
}
