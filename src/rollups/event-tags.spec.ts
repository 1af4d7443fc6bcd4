import { normaliseEvent } from '../digest/event-normaliser';
import { eventTags, userTagValue } from './event-tags';

const receivedAt = Date.parse('2026-05-01T10:00:00Z');
const eventOf = (raw: Record<string, unknown>) =>
  normaliseEvent({ timestamp: receivedAt / 1000, ...raw }, { eventId: '0'.repeat(32), receivedAt });

describe('userTagValue', () => {
  it('names the user by id, else e-mail, else IP address, else username', () => {
    expect(userTagValue({ id: '42', email: 'a@b.c', ip_address: '10.0.0.1', username: 'ann' })).toBe('id:42');
    expect(userTagValue({ email: 'a@b.c', ip_address: '10.0.0.1', username: 'ann' })).toBe('email:a@b.c');
    expect(userTagValue({ ip_address: '10.0.0.1', username: 'ann' })).toBe('ip:10.0.0.1');
    expect(userTagValue({ username: 'ann' })).toBe('username:ann');
    expect(userTagValue({ segment: 'paid' })).toBeNull();
    expect(userTagValue(null)).toBeNull();
  });
});

describe('eventTags', () => {
  it('derives the built-in tags and keeps the SDK’s own', () => {
    const tags = eventTags(
      eventOf({
        level: 'warning',
        environment: 'production',
        release: 'shop@2.1.0',
        server_name: 'web-3',
        transaction: 'GET /cart',
        user: { id: 7 },
        request: { url: 'https://shop.example.com/cart?session=abc#top' },
        contexts: {
          os: { name: 'Linux', version: '6.1' },
          runtime: { name: 'node', version: 'v20.19.0' },
          device: { model: 'Pixel 8' },
        },
        tags: { region: 'eu-west', environment: 'spoofed', 'a key with spaces': 'x' },
      }),
    );
    expect(Object.fromEntries(tags)).toEqual({
      environment: 'production',
      release: 'shop@2.1.0',
      level: 'warning',
      user: 'id:7',
      server_name: 'web-3',
      url: 'https://shop.example.com/cart',
      transaction: 'GET /cart',
      os: 'Linux 6.1',
      'os.name': 'Linux',
      runtime: 'node v20.19.0',
      'runtime.name': 'node',
      device: 'Pixel 8',
      region: 'eu-west',
    });
  });

  it('reads browser and OS from the User-Agent when the SDK sent no such context', () => {
    const tags = eventTags(
      eventOf({
        request: {
          url: 'https://shop.example.com/',
          headers: {
            'User-Agent':
              'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.71 Safari/537.36',
          },
        },
      }),
    );
    expect(tags.get('browser')).toBe('Chrome 120.0.6099.71');
    expect(tags.get('browser.name')).toBe('Chrome');
    expect(tags.get('os.name')).toBe('Windows');
  });

  it('leaves out values longer than 200 characters and keys longer than 32', () => {
    const event = eventOf({});
    event.tags = { long: 'x'.repeat(201), ['k'.repeat(33)]: 'v', ok: 'y'.repeat(200), multi: 'a\nb' };
    const tags = eventTags(event);
    expect(tags.has('multi')).toBe(false);
    expect(tags.has('long')).toBe(false);
    expect([...tags.keys()].some((key) => key.length > 32)).toBe(false);
    expect(tags.get('ok')).toHaveLength(200);
  });
});
