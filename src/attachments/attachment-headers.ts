/**
 * What an attachment item's header says of its file, made safe to store and to send back: the
 * fields are the SDK's (`filename`, `content_type`, `attachment_type`, see
 * https://develop.sentry.dev/sdk/data-model/envelope-items/#attachment), the values anyone's.
 */

const MAX_NAME_CHARS = 255;
const MAX_TYPE_CHARS = 100;
/** Sentry's default when an SDK names no type: a plain file attached to the event. */
export const DEFAULT_ATTACHMENT_TYPE = 'event.attachment';
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/;
const ATTACHMENT_TYPE = /^[a-z0-9_.-]{1,64}$/i;

export interface AttachmentFacts {
  name: string;
  contentType: string;
  attachmentType: string;
}

export function attachmentFacts(header: Record<string, unknown>): AttachmentFacts {
  return {
    name: fileName(header.filename),
    contentType: mediaType(header.content_type),
    attachmentType:
      typeof header.attachment_type === 'string' && ATTACHMENT_TYPE.test(header.attachment_type)
        ? header.attachment_type
        : DEFAULT_ATTACHMENT_TYPE,
  };
}

/** The last path component, without control characters, at most 255 characters; `attachment` if none. */
/** Control characters, line separators and bidirectional overrides: nothing a file name needs. */
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_NAMES = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function fileName(value: unknown): string {
  if (typeof value !== 'string') return 'attachment';
  const base = value.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(UNSAFE_IN_NAMES, '').trim();
  const name = [...clean].slice(0, MAX_NAME_CHARS).join('');
  return name === '' || name === '.' || name === '..' ? 'attachment' : name;
}

/** `type/subtype` in lower case, parameters dropped (a charset is not worth the risk); octet-stream otherwise. */
export function mediaType(value: unknown): string {
  if (typeof value !== 'string') return DEFAULT_CONTENT_TYPE;
  const essence = value.split(';')[0].trim().toLowerCase();
  return essence.length <= MAX_TYPE_CHARS && MEDIA_TYPE.test(essence) ? essence : DEFAULT_CONTENT_TYPE;
}

/**
 * `attachment; filename="…"; filename*=UTF-8''…` (RFC 6266): an ASCII fallback with anything
 * unsafe replaced, and the exact name percent-encoded for browsers that read `filename*`.
 */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * A download is never a page: no script, no style, no plugin, no framing, a sandbox besides, so a
 * file that a browser would render anyway (HTML, SVG) cannot act on the dashboard's origin.
 */
export const DOWNLOAD_CONTENT_SECURITY_POLICY = "default-src 'none'; sandbox; frame-ancestors 'none'";
