/**
 * Where the issue list was left: its address (for "Back to issues"), the row an issue was opened
 * from (restored on the way back), and the keys that move between its rows.
 */
import { useEffect } from 'preact/hooks';

/** Where the issue page's "Back to issues" returns: the list as it was last shown, per project. */
const LIST_URL_KEY = 'issue-list-url';

export function rememberedListUrl(projectId: number): string {
  try {
    const stored = window.sessionStorage.getItem(`${LIST_URL_KEY}:${projectId}`);
    if (stored && stored.startsWith(`/projects/${projectId}/issues`)) return stored;
  } catch {
    // storage blocked: the default list
  }
  return `/projects/${projectId}/issues`;
}

/** The issue list last shown, of any project: where a missing issue's page offers to go back to. */
export function lastListUrl(): string | null {
  try {
    const stored = window.sessionStorage.getItem(LIST_URL_KEY);
    if (stored && /^\/projects\/\d+\/issues/.test(stored)) return stored;
  } catch {
    // storage blocked
  }
  return null;
}

export function rememberListUrl(projectId: number, url: string): void {
  try {
    window.sessionStorage.setItem(`${LIST_URL_KEY}:${projectId}`, url);
    window.sessionStorage.setItem(LIST_URL_KEY, url);
  } catch {
    // storage blocked: Back goes to the default list
  }
}

/** Where the list was left for an issue: restored when the list comes back (Back, "Back to issues"). */
const RETURN_KEY = 'issue-list-return';

interface ReturnPoint {
  url: string;
  issueId: number;
  /** The row's distance from the top of the window when it was opened. */
  top: number;
}

export function rememberReturnPoint(issueId: number, link: HTMLElement): void {
  const point: ReturnPoint = {
    url: window.location.pathname + window.location.search,
    issueId,
    top: link.closest('tr')?.getBoundingClientRect().top ?? link.getBoundingClientRect().top,
  };
  try {
    window.sessionStorage.setItem(RETURN_KEY, JSON.stringify(point));
  } catch {
    // storage blocked: the list opens at its top
  }
}

function takeReturnPoint(): ReturnPoint | null {
  try {
    const stored = window.sessionStorage.getItem(RETURN_KEY);
    if (!stored) return null;
    const point = JSON.parse(stored) as ReturnPoint;
    if (point.url !== window.location.pathname + window.location.search) return null;
    window.sessionStorage.removeItem(RETURN_KEY);
    return point;
  } catch {
    return null;
  }
}

export const issueLinks = () => [...document.querySelectorAll<HTMLAnchorElement>('.issues-table .issue-link')];

export function focusIssueLink(link: HTMLAnchorElement | undefined): void {
  if (!link) return;
  link.focus({ preventScroll: true });
  link.closest('tr')?.scrollIntoView({ block: 'nearest' });
}

/** `j` and `k` move to the next and previous issue of the list (Enter opens it), outside text fields. */
export function useIssueKeys(): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key !== 'j' && event.key !== 'k') return;
      if ((event.target as Element | null)?.closest?.('input, textarea, select, [contenteditable]')) return;
      const links = issueLinks();
      if (links.length === 0) return;
      event.preventDefault();
      const at = links.indexOf(document.activeElement as HTMLAnchorElement);
      const next = at === -1 ? 0 : Math.min(links.length - 1, Math.max(0, at + (event.key === 'j' ? 1 : -1)));
      focusIssueLink(links[next]);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

/** Back from an issue: the row it was opened from, where it was on screen, with focus on it. */
export function useReturnToRow(rows: unknown[]): void {
  useEffect(() => {
    if (rows.length === 0) return;
    const point = takeReturnPoint();
    if (!point) return;
    const frame = window.requestAnimationFrame(() => {
      const link = document.querySelector<HTMLAnchorElement>(`.issues-table .issue-link[href="/issues/${point.issueId}"]`);
      if (!link) return;
      const row = link.closest('tr') ?? link;
      window.scrollBy(0, row.getBoundingClientRect().top - point.top);
      link.focus({ preventScroll: true });
    });
    return () => window.cancelAnimationFrame(frame);
  }, [rows]);
}
