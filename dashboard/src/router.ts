import { useEffect, useState } from 'preact/hooks';

/** Clean URLs with the history API; the server answers index.html for every page path. */
export interface Location {
  path: string;
  query: URLSearchParams;
}

const CHANGE = 'app:navigate';

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search + window.location.hash) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(CHANGE));
  if (!options.replace) window.scrollTo(0, 0);
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return location;
}

/** Same-origin links become client-side navigations (new-tab clicks and downloads are left alone). */
export function interceptLinks(): void {
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest?.('a');
    if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
    const url = new URL(anchor.href, window.location.href);
    if (url.origin !== window.location.origin) return;
    if (/^\/(api|auth|health)(\/|$)/.test(url.pathname)) return;
    // An anchor on this very page is the browser's to scroll to.
    if (url.hash && url.pathname === window.location.pathname && url.search === window.location.search) return;
    event.preventDefault();
    // The anchor goes along: a page may read it (settings sections answer the anchors of older links).
    navigate(url.pathname + url.search + url.hash);
  });
}

/** Matches `/projects/:id/issues` style patterns; returns the named parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const source = pattern.replace(/:(\w+)/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const result = new RegExp(`^${source}/?$`).exec(path);
  if (!result) return null;
  const params: Record<string, string> = {};
  names.forEach((name, index) => (params[name] = decodeURIComponent(result[index + 1])));
  return params;
}
