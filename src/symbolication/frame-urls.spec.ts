import { resolveReference, sourcePath, urlCandidates } from './frame-urls';

describe('frame URL matching', () => {
  it('tries the URL, then the path under any host, with and without the query', () => {
    expect(urlCandidates('https://shop.example.com/assets/app.js?v=3#x')).toEqual([
      'https://shop.example.com/assets/app.js?v=3#x',
      'https://shop.example.com/assets/app.js',
      '~/assets/app.js?v=3#x',
      '~/assets/app.js',
    ]);
    expect(urlCandidates('http://127.0.0.1:8080/app.js')).toEqual([
      'http://127.0.0.1:8080/app.js',
      '~/app.js',
    ]);
    expect(urlCandidates('/static/app.js')).toEqual(['/static/app.js', '~/static/app.js']);
    expect(urlCandidates('app:///main.js')).toEqual(['app:///main.js', '~/main.js']);
  });

  it('resolves a map reference against the file that names it', () => {
    expect(resolveReference('~/assets/app.js', 'app.js.map')).toBe('~/assets/app.js.map');
    expect(resolveReference('~/assets/app.js', '../maps/app.js.map')).toBe('~/maps/app.js.map');
    expect(resolveReference('https://cdn.example.com/a/app.js', 'app.js.map')).toBe(
      'https://cdn.example.com/a/app.js.map',
    );
    expect(resolveReference('~/app.js', 'https://maps.example.com/app.js.map')).toBe(
      'https://maps.example.com/app.js.map',
    );
    expect(resolveReference('~/app.js', '~/other.map')).toBe('~/other.map');
  });

  it('names sources the same in every build', () => {
    expect(sourcePath('../src/cart.ts')).toBe('src/cart.ts');
    expect(sourcePath('webpack://shop/./src/cart.ts')).toBe('src/cart.ts');
    expect(sourcePath('webpack:///src/cart.ts')).toBe('src/cart.ts');
    expect(sourcePath('src/cart.ts')).toBe('src/cart.ts');
  });
});
