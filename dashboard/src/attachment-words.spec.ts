import { attachmentTypeWords, filesText, MAX_TEXT_PREVIEW_BYTES, previewKind, textPreview } from './attachment-words';

const file = (content_type: string, name = 'file', size = 100) => ({ content_type, name, size });

describe('attachments in words', () => {
  it("names Sentry's attachment types in words, and keeps an unknown one as sent", () => {
    expect(attachmentTypeWords('event.attachment')).toBe('Attachment');
    expect(attachmentTypeWords('event.minidump')).toBe('Minidump');
    expect(attachmentTypeWords('event.view_hierarchy')).toBe('View hierarchy');
    expect(attachmentTypeWords('custom.kind')).toBe('custom.kind');
  });

  it('counts files', () => {
    expect(filesText(1)).toBe('1 file');
    expect(filesText(3)).toBe('3 files');
  });
});

describe('which files the page may show', () => {
  it('shows raster images up to 10 MB, and text', () => {
    expect(previewKind(file('image/png'))).toBe('image');
    expect(previewKind(file('image/jpeg', 'a.jpg', 10 * 1024 * 1024))).toBe('image');
    expect(previewKind(file('image/jpeg', 'a.jpg', 10 * 1024 * 1024 + 1))).toBeNull();
    expect(previewKind(file('text/plain'))).toBe('text');
    expect(previewKind(file('application/json'))).toBe('text');
    expect(previewKind(file('application/octet-stream', 'app.log'))).toBe('text');
  });

  it('never shows HTML or SVG, whatever the type or name says, nor unknown binaries', () => {
    expect(previewKind(file('text/html'))).toBeNull();
    expect(previewKind(file('image/svg+xml'))).toBeNull();
    expect(previewKind(file('text/plain', 'page.html'))).toBeNull();
    expect(previewKind(file('image/png', 'logo.svg'))).toBeNull();
    expect(previewKind(file('application/octet-stream', 'crash.dmp'))).toBeNull();
  });

  it('reads text up to its limit, says when it is cut, and refuses bytes with a NUL', () => {
    const encoder = new TextEncoder();
    expect(textPreview(encoder.encode('line one\nline two\n'), 18)).toEqual({ text: 'line one\nline two\n', cut: false });
    const long = encoder.encode('é'.repeat(MAX_TEXT_PREVIEW_BYTES));
    const preview = textPreview(long, long.length);
    expect(preview?.cut).toBe(true);
    // 2-byte characters: exactly half of the limit, and no replacement mark for a cut one.
    expect(preview?.text).toBe('é'.repeat(MAX_TEXT_PREVIEW_BYTES / 2));
    expect(textPreview(new Uint8Array([77, 68, 77, 80, 0, 1]), 6)).toBeNull();
  });
});
