/**
 * How a stack frame's URL is matched to an uploaded file, as Sentry does: the manifest names files
 * by full URL (`https://cdn.example.com/app.js`) or by path under any host (`~/app.js`); a frame's
 * URL is tried as it is, then as `~/` + its path, each with and without its query and fragment.
 */
export function urlCandidates(url: string): string[] {
  const candidates: string[] = [];
  const add = (candidate: string) => {
    if (candidate && !candidates.includes(candidate)) candidates.push(candidate);
  };
  const bare = url.replace(/[?#].*$/s, '');
  add(url);
  add(bare);
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i.exec(url);
  if (match) {
    const path = match[1] ?? '/';
    add(`~${path}`);
    add(`~${path.replace(/[?#].*$/s, '')}`);
  } else if (url.startsWith('/')) {
    add(`~${url}`);
    add(`~${bare}`);
  }
  return candidates;
}

/**
 * A source map reference (a `Sourcemap` header or `sourceMappingURL`) resolved against the URL of
 * the file that names it: `app.js.map` next to `~/assets/app.js` is `~/assets/app.js.map`.
 */
export function resolveReference(fileUrl: string, reference: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(reference) || reference.startsWith('~/')) return reference;
  const tilde = fileUrl.startsWith('~/');
  try {
    const base = new URL(tilde ? `http://tilde.invalid${fileUrl.slice(1)}` : fileUrl);
    const resolved = new URL(reference, base);
    return tilde ? `~${resolved.pathname}${resolved.search}` : resolved.toString();
  } catch {
    return reference;
  }
}

/**
 * A source path as a frame shows it: bundlers' prefixes (`webpack://app/`, `../`, `./`) dropped,
 * so that the same file has the same name in every build.
 */
export function sourcePath(source: string): string {
  let path = source.replace(/^webpack:\/\/[^/]*\//, '').replace(/^webpack:\/\//, '');
  while (path.startsWith('../') || path.startsWith('./')) path = path.slice(path.indexOf('/') + 1);
  return path;
}
