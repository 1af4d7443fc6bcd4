/**
 * What the dashboard says of an attached file, and whether it may show the file in the page. Only
 * raster images (drawn by <img>, which runs nothing) and text (read as text and put in the page as
 * text, never as markup) are shown; HTML, SVG and everything else are downloads only, whatever the
 * SDK claimed, so that no file can act on the dashboard's origin.
 */

const TYPE_WORDS: Record<string, string> = {
  'event.attachment': 'Attachment',
  'event.minidump': 'Minidump',
  'event.applecrashreport': 'Apple crash report',
  'event.view_hierarchy': 'View hierarchy',
  'unreal.context': 'Unreal crash context',
  'unreal.logs': 'Unreal log',
};

/** Sentry's attachment type in words; an unknown one as it was sent. */
export function attachmentTypeWords(type: string): string {
  return TYPE_WORDS[type] ?? type;
}

/** Images <img> draws without running anything: never SVG, which is a document. */
const RASTER_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);
const TEXT_TYPES = new Set([
  'application/json',
  'application/x-ndjson',
  'application/xml',
  'application/x-yaml',
  'application/yaml',
]);
/** Names SDKs and apps give text files sent as octet-stream. */
const TEXT_NAME = /\.(txt|log|json|ndjson|csv|tsv|xml|ya?ml|md|ini|conf|cfg|trace|stacktrace|runtime-xml)$/i;

/** Larger images are a download: a preview should not pull megabytes by surprise. */
export const MAX_IMAGE_PREVIEW_BYTES = 10 * 1024 * 1024;
/** Text is read up to this many bytes, and said to be cut when longer. */
export const MAX_TEXT_PREVIEW_BYTES = 64 * 1024;

export type PreviewKind = 'image' | 'text' | null;

export function previewKind(file: { content_type: string; name: string; size: number }): PreviewKind {
  const type = file.content_type.toLowerCase();
  if (type === 'text/html' || type === 'image/svg+xml' || /\.(html?|svgz?|xhtml)$/i.test(file.name)) return null;
  if (RASTER_IMAGES.has(type)) return file.size <= MAX_IMAGE_PREVIEW_BYTES ? 'image' : null;
  if (type.startsWith('text/') || TEXT_TYPES.has(type)) return 'text';
  if (type === 'application/octet-stream' && TEXT_NAME.test(file.name)) return 'text';
  return null;
}

/**
 * The first bytes of a file as text, or null when they hold a NUL (a binary file under a text name).
 * A character cut at the end is dropped rather than shown as a replacement mark.
 */
export function textPreview(bytes: Uint8Array, totalSize: number): { text: string; cut: boolean } | null {
  const head = bytes.subarray(0, MAX_TEXT_PREVIEW_BYTES);
  if (head.includes(0)) return null;
  const cut = totalSize > head.length;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head, { stream: cut });
  return { text, cut };
}

/** "1 file", "3 files". */
export function filesText(count: number): string {
  return `${count.toLocaleString()} ${count === 1 ? 'file' : 'files'}`;
}
