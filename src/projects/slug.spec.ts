import { firstFreeSlug, slugify } from './slug';

describe('slugify', () => {
  it.each([
    ['My Web App!', 'my-web-app'],
    ['  backend  ', 'backend'],
    ['Café Crème', 'cafe-creme'],
    ['API v2.0 (prod)', 'api-v2-0-prod'],
    ['!!!', 'project'],
    ['a'.repeat(60), 'a'.repeat(40)],
  ])('%s → %s', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });
});

describe('firstFreeSlug', () => {
  it('keeps a free slug and suffixes a taken one', () => {
    expect(firstFreeSlug('web', new Set())).toBe('web');
    expect(firstFreeSlug('web', new Set(['web']))).toBe('web-2');
    expect(firstFreeSlug('web', new Set(['web', 'web-2']))).toBe('web-3');
  });
});
