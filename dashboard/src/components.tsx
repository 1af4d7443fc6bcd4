import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, errorMessage } from './api';
import { useSubmit } from './actions';
import { copyText, display, exactTime, isRecord, relativeTime, sentence } from './util';

export interface Async<T> {
  data: T | undefined;
  error: string | null;
  /** The HTTP status of the error answer; 0 when the server could not be reached, null without error. */
  status: number | null;
  loading: boolean;
  reload: () => void;
  /** Asks again without showing loading: for background refreshes of what is on screen. */
  refresh: () => void;
  setData: (data: T) => void;
}

/** Runs `load` when `deps` change; stale answers (after a newer request) are dropped. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<number | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const generation = useRef(0);
  const quiet = useRef(false);
  useEffect(() => {
    const mine = ++generation.current;
    if (!quiet.current) {
      setLoading(true);
      setError(null);
      setStatus(null);
    }
    quiet.current = false;
    load().then(
      (value) => {
        if (mine !== generation.current) return;
        setData(value);
        setError(null);
        setStatus(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (mine !== generation.current) return;
        setError(errorMessage(failure));
        setStatus(failure instanceof ApiError ? failure.status : 0);
        setLoading(false);
      },
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  const refresh = useCallback(() => {
    quiet.current = true;
    setTick((n) => n + 1);
  }, []);
  return { data, error, status, loading, reload, refresh, setData };
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

/** Whether asking again may help: not when the server refused the request itself (4xx, but a timeout or a rate limit). */
export function retryable(status: number | null | undefined): boolean {
  return !(typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429);
}

export function ErrorMessage({
  error,
  onRetry,
  status,
}: {
  error: string | null | undefined;
  onRetry?: () => void;
  /** The answer's status: no Retry for a request the server refused (it would refuse it again). */
  status?: number | null;
}) {
  if (!error) return null;
  return (
    <div class="alert alert-error" role="alert">
      <span>{sentence(error)}</span>
      {onRetry && retryable(status) && (
        <button type="button" class="btn btn-small" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

/**
 * A page that cannot be shown (not found, or not visible to this account): says so, and offers a way
 * on instead of a Retry that would only be refused again.
 */
export function DeadEnd({ title, children, links }: { title: string; children: ComponentChildren; links: { href: string; label: string }[] }) {
  return (
    <div class="card dead-end">
      <h1>{title}</h1>
      <p>{children}</p>
      <p class="inline-actions">
        {links.map((link) => (
          <a key={link.href} href={link.href} class="btn btn-small">
            {link.label}
          </a>
        ))}
      </p>
    </div>
  );
}

/** A project page's answer to its project failing to load: a dead end for 403 and 404, else Retry. */
export function ProjectLoadError({ project }: { project: Pick<Async<unknown>, 'error' | 'status' | 'reload'> }) {
  if (project.status === 404 || project.status === 403) {
    return (
      <DeadEnd title="Project not found" links={[{ href: '/', label: 'Back to projects' }]}>
        There is no project at this address, or none of your teams can see it. Ask an admin to add
        your team to it if you need it.
      </DeadEnd>
    );
  }
  return <ErrorMessage error={project.error} onRetry={project.reload} status={project.status} />;
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children && <div class="empty-body">{children}</div>}
    </div>
  );
}

export function RelTime({ value }: { value: unknown }) {
  const exact = exactTime(value);
  if (!exact) return <span class="muted">—</span>;
  return (
    <time dateTime={String(value)} title={exact}>
      {relativeTime(value)}
    </time>
  );
}

/** A form's outcome: the server's error, or what was saved. */
export function FormFeedback({ error, notice }: { error: string | null; notice: string | null }) {
  return (
    <div class="form-feedback">
      <ErrorMessage error={error} />
      {notice && (
        <div class="alert alert-success" role="status">
          {notice}
        </div>
      )}
    </div>
  );
}

/** Shown instead of a page the signed-in role cannot use (the API would refuse it anyway). */
export function NoAccess({ what, role }: { what: string; role: string }) {
  return (
    <div class="card">
      <h1>Not available to your role</h1>
      <p>
        A {role} cannot {what}. Ask an admin if you need it.
      </p>
      <p>
        <a href="/">Back to projects</a>
      </p>
    </div>
  );
}

export function Badge({ kind, children }: { kind: string; children: ComponentChildren }) {
  return <span class={`badge badge-${kind}`}>{children}</span>;
}

export function CopyButton({ text, label = 'Copy', class: className }: { text: string; label?: string; class?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 2000);
    return () => window.clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      class={`btn btn-small ${className ?? ''}`}
      onClick={() => void copyText(text).then((ok) => setState(ok ? 'copied' : 'failed'))}
    >
      <span aria-live="polite">{state === 'copied' ? 'Copied!' : state === 'failed' ? 'Copy failed — select and copy' : label}</span>
    </button>
  );
}

/** A definition table for objects such as contexts, user or sdk; nested values as JSON. */
export function KeyValue({ data, empty = 'None' }: { data: unknown; empty?: string }) {
  if (!isRecord(data)) return <p class="muted">{data === undefined || data === null ? empty : display(data)}</p>;
  const entries = Object.entries(data).filter(([, value]) => value !== undefined && value !== null && value !== '');
  if (entries.length === 0) return <p class="muted">{empty}</p>;
  return (
    <table class="kv">
      <tbody>
        {entries.map(([key, value]) => (
          <tr key={key}>
            <th scope="row">{key}</th>
            <td>
              {isRecord(value) || Array.isArray(value) ? <pre class="inline-json">{JSON.stringify(value, null, 2)}</pre> : display(value)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function PageHeader({ title, children, sub }: { title: ComponentChildren; sub?: ComponentChildren; children?: ComponentChildren }) {
  return (
    <div class="page-header">
      <div class="page-header-text">
        <h1>{title}</h1>
        {sub && <div class="page-sub">{sub}</div>}
      </div>
      {children && <div class="page-actions">{children}</div>}
    </div>
  );
}

/**
 * For a row of tabs that scrolls sideways on narrow screens: brings the current one into view, which
 * would otherwise be off to the right where nothing shows it is there.
 */
export function useCurrentTabInView<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    const row = ref.current;
    const current = row?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!row || !current) return;
    const beyond = current.getBoundingClientRect().right - row.getBoundingClientRect().right;
    if (beyond > 0) row.scrollLeft += beyond + 16;
  });
  return ref;
}

/** Keeps the document title in step with the page. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · Error Tracker` : 'Error Tracker';
  }, [title]);
}

/** The "Enabled" checkbox and Save / Cancel buttons that end the channel and rule forms. */
export function EnabledAndActions(props: {
  name: string;
  enabled: boolean;
  onEnabled: (enabled: boolean) => void;
  busy: boolean;
  submitLabel: string;
  onCancel: () => void;
}) {
  return (
    <>
      <label class="check">
        <input type="checkbox" name={props.name} checked={props.enabled} onChange={(e) => props.onEnabled(e.currentTarget.checked)} />
        Enabled
      </label>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={props.busy}>
          {props.busy ? 'Saving…' : props.submitLabel}
        </button>
        <button type="button" class="btn" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </>
  );
}

/** A trend line of counts, oldest first; the label says what it shows for screen readers. */
export function Sparkline({ counts, label, width = 96, height = 24 }: { counts: number[]; label: string; width?: number; height?: number }) {
  const max = Math.max(1, ...counts);
  const step = counts.length > 1 ? width / (counts.length - 1) : width;
  const points = counts.map((count, index) => `${(index * step).toFixed(1)},${(height - 2 - (count / max) * (height - 4)).toFixed(1)}`);
  return (
    <svg class="sparkline" role="img" aria-label={label} width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
      <title>{label}</title>
      <polyline points={points.join(' ')} fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" />
    </svg>
  );
}

/**
 * Moves an open menu left until its right edge is inside the window (a menu opened near the right
 * edge would otherwise run off it and widen the page), but never past the window's left edge.
 */
function keepInViewport(list: HTMLElement | null | undefined): void {
  if (!list) return;
  list.style.left = '';
  const margin = 8;
  const width = document.documentElement.clientWidth;
  const rect = list.getBoundingClientRect();
  const over = rect.right - (width - margin);
  if (over > 0) list.style.left = `${-Math.min(over, rect.left - margin)}px`;
}

/** The one-field form that creates something by its name (a project, a team); emptied once created. */
export function NewNameForm(props: {
  label: string;
  inputName: string;
  maxLength: number;
  placeholder: string;
  submitLabel: string;
  formLabel?: string;
  onCreate: (name: string) => Promise<void>;
}) {
  const [name, setName] = useState('');
  const { busy, error, run } = useSubmit();
  return (
    <form
      class="card inline-form"
      aria-label={props.formLabel}
      onSubmit={(event) => {
        event.preventDefault();
        void run(async () => {
          await props.onCreate(name.trim());
          setName('');
        });
      }}
    >
      <label class="field grow">
        <span>{props.label}</span>
        <input
          name={props.inputName}
          required
          maxLength={props.maxLength}
          placeholder={props.placeholder}
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
      </label>
      <button type="submit" class="btn btn-primary" disabled={busy || !name.trim()}>
        {busy ? 'Creating…' : props.submitLabel}
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}

/** Checkboxes choosing some of `options` by id (teams, projects, channels): `chosen` in, the new choice out. */
export function CheckboxPicker({
  options,
  chosen,
  onChange,
  itemClass = 'check',
}: {
  options: { id: number; label: ComponentChildren }[];
  chosen: number[];
  onChange: (chosen: number[]) => void;
  itemClass?: string;
}) {
  return (
    <>
      {options.map((option) => (
        <label key={option.id} class={itemClass}>
          <input
            type="checkbox"
            checked={chosen.includes(option.id)}
            onChange={(event) =>
              onChange(event.currentTarget.checked ? [...chosen, option.id] : chosen.filter((id) => id !== option.id))
            }
          />
          {option.label}
        </label>
      ))}
    </>
  );
}

export interface MenuItem {
  label: string;
  onSelect: () => void;
}

/**
 * A button that opens a list of choices; closes on a choice, Escape or a click elsewhere. By keyboard
 * (as WAI-ARIA's menu button): ArrowDown/ArrowUp move between the choices (and open the menu from
 * the button), Home/End go to the first/last, Escape closes it and returns focus to the button.
 */
export function Menu({ label, items, disabled, class: className }: { label: ComponentChildren; items: MenuItem[]; disabled?: boolean; class?: string }) {
  const [open, setOpen] = useState(false);
  /** Which choice gets focus when the menu opens: the first, or (ArrowUp on the button) the last. */
  const [startAt, setStartAt] = useState<'first' | 'last'>('first');
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const choices = () => [...(root.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])];
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };
  // Before the menu is painted: it shows with its choice already focused.
  useLayoutEffect(() => {
    if (!open) return;
    const outside = (event: Event) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', outside);
    keepInViewport(root.current?.querySelector<HTMLElement>('[role="menu"]'));
    const all = choices();
    (startAt === 'last' ? all[all.length - 1] : all[0])?.focus();
    return () => document.removeEventListener('mousedown', outside);
  }, [open]);
  const onMenuKey = (event: KeyboardEvent) => {
    const all = choices();
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    let next: number | null = null;
    if (event.key === 'ArrowDown') next = (at + 1) % all.length;
    else if (event.key === 'ArrowUp') next = (at - 1 + all.length) % all.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = all.length - 1;
    else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close(true);
      return;
    } else if (event.key === 'Tab') {
      close(false);
      return;
    }
    if (next === null || all.length === 0) return;
    event.preventDefault();
    all[next].focus();
  };
  const onButtonKey = (event: KeyboardEvent) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    setStartAt(event.key === 'ArrowUp' ? 'last' : 'first');
    if (open) {
      const all = choices();
      (event.key === 'ArrowUp' ? all[all.length - 1] : all[0])?.focus();
    } else setOpen(true);
  };
  return (
    <div class="menu" ref={root}>
      <button
        ref={button}
        type="button"
        class={`btn btn-small ${className ?? ''}`}
        aria-haspopup="menu"
        aria-expanded={open}
        disabled={disabled}
        onKeyDown={onButtonKey}
        onClick={() => {
          setStartAt('first');
          setOpen(!open);
        }}
      >
        {label} <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div class="menu-list" role="menu" onKeyDown={onMenuKey}>
          {items.map((item) => (
            <button
              key={item.label}
              type="button"
              role="menuitem"
              tabIndex={-1}
              class="menu-item"
              onClick={() => {
                close(true);
                item.onSelect();
              }}
            >
              {item.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
