import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * Every relative link of README.md and docs/*.md leads to a file that exists and, with an #anchor,
 * to a heading of that file, as GitHub names headings: so that a moved section cannot leave a
 * stale link behind.
 */

const root = join(__dirname, '..');
const documents = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name)),
];

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a file's headings; a repeated heading gets -1, -2 … as on GitHub. */
function anchors(file: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  const text = readFileSync(file, 'utf8').replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    found.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return found;
}

interface Link {
  from: string;
  target: string;
}

function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  for (const [, target] of prose(readFileSync(file, 'utf8')).matchAll(
    /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
  )) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: …
    links.push({ from: relative(root, file), target });
  }
  return links;
}

/** What is wrong with a link, or null. */
function problem(link: Link): string | null {
  const [path, anchor] = link.target.split('#', 2);
  const file = path === '' ? join(root, link.from) : join(dirname(join(root, link.from)), decodeURI(path));
  if (!existsSync(file)) return `no file ${relative(root, file)}`;
  if (anchor === undefined || anchor === '') return null;
  if (!statSync(file).isFile() || !file.endsWith('.md')) return `#${anchor} on a file that is not Markdown`;
  return anchors(file).has(decodeURIComponent(anchor))
    ? null
    : `no heading #${anchor} in ${relative(root, file)}`;
}

describe('documentation links', () => {
  it('names GitHub anchors as GitHub does', () => {
    expect(slug('When a disk or Redis fills up')).toBe('when-a-disk-or-redis-fills-up');
    expect(slug('Grouping and the issue lifecycle')).toBe('grouping-and-the-issue-lifecycle');
    expect(slug('`PgBouncer`: pools, sizes')).toBe('pgbouncer-pools-sizes');
    expect(slug('1. Infrastructure')).toBe('1-infrastructure');
  });

  it('finds the documents and their links', () => {
    expect(documents.length).toBeGreaterThan(5);
    expect(documents.flatMap(relativeLinks).length).toBeGreaterThan(20);
  });

  it.each(documents.map((file) => [relative(root, file)]))('%s: every relative link resolves', (name) => {
    const broken = relativeLinks(join(root, name))
      .map((link) => ({ link: link.target, problem: problem(link) }))
      .filter((entry) => entry.problem !== null);
    expect(broken).toEqual([]);
  });
});
