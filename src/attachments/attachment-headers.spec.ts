import { attachmentFacts, contentDisposition, fileName, mediaType } from './attachment-headers';

describe('attachment headers', () => {
  it('keeps what SDKs send', () => {
    expect(
      attachmentFacts({ filename: 'log.txt', content_type: 'text/plain', attachment_type: 'event.minidump' }),
    ).toEqual({ name: 'log.txt', contentType: 'text/plain', attachmentType: 'event.minidump' });
  });

  it('defaults missing or odd fields', () => {
    expect(attachmentFacts({})).toEqual({
      name: 'attachment',
      contentType: 'application/octet-stream',
      attachmentType: 'event.attachment',
    });
    expect(attachmentFacts({ attachment_type: 'evil type; x' }).attachmentType).toBe('event.attachment');
  });

  it('strips paths and control characters from names', () => {
    expect(fileName('../../etc/passwd')).toBe('passwd');
    expect(fileName('C:\\Users\\me\\dump.dmp')).toBe('dump.dmp');
    expect(fileName('a\u0000b\r\nc\u202e.txt')).toBe('abc.txt');
    expect(fileName('..')).toBe('attachment');
    expect(fileName('x'.repeat(300))).toHaveLength(255);
  });

  it('reduces content types to a plain type/subtype', () => {
    expect(mediaType('Text/Plain; charset=utf-8')).toBe('text/plain');
    expect(mediaType('text/html\r\nSet-Cookie: a=b')).toBe('application/octet-stream');
    expect(mediaType('not a type')).toBe('application/octet-stream');
    expect(mediaType(42)).toBe('application/octet-stream');
  });

  it('encodes names safely in Content-Disposition', () => {
    expect(contentDisposition('report.txt')).toBe(
      `attachment; filename="report.txt"; filename*=UTF-8''report.txt`,
    );
    expect(contentDisposition('a"b;c\\d.txt')).toBe(
      `attachment; filename="a_b_c_d.txt"; filename*=UTF-8''a%22b%3Bc%5Cd.txt`,
    );
    expect(contentDisposition('crash ü.dmp')).toBe(
      `attachment; filename="crash _.dmp"; filename*=UTF-8''crash%20%C3%BC.dmp`,
    );
  });
});
