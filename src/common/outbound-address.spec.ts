import { guardedLookup, refusalWords, resolvesToRefused } from './outbound-address';

describe('refusals of the outbound guard', () => {
  it('name the host and the kind of address, never the address a name resolves to', async () => {
    const lookup = guardedLookup(
      (target, reason, resolved) => new Error(refusalWords(target, reason, resolved)),
    );
    const error = await new Promise<Error | null>((resolve) => lookup('localhost', {}, (e) => resolve(e)));
    expect(error?.message).toBe(
      'refused to connect to localhost: it resolves to a loopback address, which is not allowed',
    );
    expect(await resolvesToRefused('localhost')).toEqual({ reason: 'loopback', resolved: true });
  });

  it('name a literal address as written, since the user wrote it', async () => {
    expect(refusalWords('10.1.2.3', 'private', false)).toBe(
      'refused to connect to 10.1.2.3: private addresses are not allowed',
    );
    expect(await resolvesToRefused('10.1.2.3')).toEqual({ reason: 'private', resolved: false });
    expect(await resolvesToRefused('8.8.8.8')).toBeNull();
  });
});
