import { rejectMaskedHeaders, restoreMaskedHeaders } from './uptime-header-secrets';

const stored = { Authorization: 'Bearer s3cret-token-12345', 'X-Team': 'ops' };
const url = 'https://status.example.com/health';

function errorOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('uptime monitor headers, write-only', () => {
  it('keeps the stored values when left out or sent back masked, replaces and removes the others', () => {
    expect(restoreMaskedHeaders(undefined, stored, url, url)).toEqual(stored);
    expect(restoreMaskedHeaders({ authorization: 'Bear...****', 'X-Team': 'sre' }, stored, url, url)).toEqual(
      {
        authorization: stored.Authorization,
        'X-Team': 'sre',
      },
    );
    expect(restoreMaskedHeaders({ 'X-Team': '****' }, stored, url, url)).toEqual({ 'X-Team': 'ops' });
    expect(restoreMaskedHeaders({}, stored, url, url)).toEqual({});
  });

  it('refuses a masked value that is not the stored one, and masks on a new monitor', () => {
    expect(errorOf(() => restoreMaskedHeaders({ Authorization: 'Othe...****' }, stored, url, url))).toBe(
      'headers.Authorization is a masked value: send the new value, or the masked value unchanged',
    );
    expect(errorOf(() => restoreMaskedHeaders({ 'X-New': '****' }, stored, url, url))).toBe(
      'headers.X-New is a masked value: send the new value, or the masked value unchanged',
    );
    expect(errorOf(() => rejectMaskedHeaders({ 'X-Key': '****' }))).toBe(
      'headers.X-Key is a masked value: send the value itself',
    );
    expect(errorOf(() => rejectMaskedHeaders({ 'X-Key': 'plain' }))).toBeUndefined();
  });

  it('keeps stored values only while the URL stays on the same origin', () => {
    const moved = 'https://elsewhere.example/health';
    expect(errorOf(() => restoreMaskedHeaders(undefined, stored, moved, url))).toBe(
      'headers.Authorization must be sent again when url moves to another origin',
    );
    expect(
      errorOf(() =>
        restoreMaskedHeaders({ 'X-Team': '****' }, stored, 'http://status.example.com/health', url),
      ),
    ).toBe('headers.X-Team must be sent again when url moves to another origin');
    expect(restoreMaskedHeaders({ Authorization: 'Bearer new' }, stored, moved, url)).toEqual({
      Authorization: 'Bearer new',
    });
    expect(restoreMaskedHeaders(undefined, stored, 'https://status.example.com/other', url)).toEqual(stored);
    expect(restoreMaskedHeaders(undefined, {}, moved, url)).toEqual({});
  });
});
