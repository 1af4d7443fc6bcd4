import { renderComment } from './comment-markdown';

describe('renderComment', () => {
  it('renders Markdown', () => {
    expect(renderComment('**Fixed** in `v2`, see [the PR](https://example.com/pr/1)')).toBe(
      '<p><strong>Fixed</strong> in <code>v2</code>, see ' +
        '<a href="https://example.com/pr/1" rel="noopener noreferrer nofollow" target="_blank">the PR</a></p>\n',
    );
    expect(renderComment('- a\n- b')).toBe('<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n');
    expect(renderComment('```\nconst x = 1 < 2;\n```')).toBe(
      '<pre><code>const x = 1 &lt; 2;\n</code></pre>\n',
    );
  });

  /** Every tag of the HTML, with its attributes. */
  function tags(html: string): { name: string; attributes: [string, string][] }[] {
    return [...html.matchAll(/<([a-z0-9]+)((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*\/?>/gi)].map((match) => ({
      name: match[1].toLowerCase(),
      attributes: [...match[2].matchAll(/([^\s=]+)(?:="([^"]*)")?/g)].map((attribute) => [
        attribute[1].toLowerCase(),
        attribute[2] ?? '',
      ]),
    }));
  }

  it.each([
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '[click](javascript:alert(1))',
    '[click](JaVaScRiPt:alert(1))',
    '<a href="javascript:alert(1)">x</a>',
    '![x](data:text/html;base64,PHNjcmlwdD4=)',
    '![x](https://tracker.example/pixel.png)',
    '<iframe src="https://evil.example"></iframe>',
    '[x](vbscript:msgbox)',
    '<div style="position:fixed" onclick="x()">x</div>',
    '<<script>script>alert(1)<</script>/script>',
  ])('keeps %s inert', (body) => {
    const html = renderComment(body);
    expect(html.length).toBeGreaterThan(0);
    for (const tag of tags(html)) {
      expect(['p', 'a', 'br', 'code', 'em', 'strong']).toContain(tag.name);
      for (const [name, value] of tag.attributes) {
        expect(['href', 'rel', 'target', 'title']).toContain(name);
        if (name === 'href') expect(value).toMatch(/^(https?:|mailto:)/);
      }
    }
  });

  it('sees the tags it checks', () => {
    expect(tags('<p><a href="https://x" rel="a b">y</a></p>')).toEqual([
      { name: 'p', attributes: [] },
      {
        name: 'a',
        attributes: [
          ['href', 'https://x'],
          ['rel', 'a b'],
        ],
      },
    ]);
  });

  it('shows HTML typed in a comment as text', () => {
    expect(renderComment('a <b>bold</b> claim')).toBe('<p>a &lt;b&gt;bold&lt;/b&gt; claim</p>\n');
  });
});
