import { useState } from 'preact/hooks';
import { useCan } from '../access';
import { call, Channel, ChannelType, client, errorMessage } from '../api';
import { Badge, EnabledAndActions, Empty, ErrorMessage, Loading, PageHeader, RelTime, useAsync, useTitle } from '../components';
import { useEnabledSwitch, useSubmit } from '../actions';
import { SettingsNav } from './SettingsNav';

const CHANNEL_LABELS: Record<ChannelType, string> = { webhook: 'Webhook', email: 'E-mail', chat: 'Chat' };

function channelTarget(channel: Channel): string {
  const config = channel.config ?? {};
  if (channel.channel_type === 'webhook') return String(config.url ?? '');
  if (channel.channel_type === 'email') return Array.isArray(config.to) ? config.to.join(', ') : String(config.to ?? '');
  return String(config.webhook_url ?? '');
}

/** Extra request headers of a webhook; the API shows stored values masked (`abcd...****`). */
interface HeaderRow {
  /** Stable across edits, so that removing a row keeps the others' inputs. */
  key: number;
  name: string;
  value: string;
}

/** What the API accepts (src/channels/channel-config.ts): 20 headers, RFC 9110 token names, single-line values. */
const MAX_HEADERS = 20;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

let nextHeaderKey = 0;
const headerRow = (name = '', value = ''): HeaderRow => ({ key: nextHeaderKey++, name, value });

/** By name: the API keeps no order (PostgreSQL's jsonb sorts keys by length), and none matters in HTTP. */
function storedHeaders(config: Record<string, unknown>): [string, string][] {
  const headers = config.headers;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return [];
  return Object.entries(headers)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .sort(([a], [b]) => a.localeCompare(b, 'en', { sensitivity: 'base' }));
}

interface ChannelDraft {
  name: string;
  channel_type: ChannelType;
  is_enabled: boolean;
  url: string;
  secret: string;
  headers: HeaderRow[];
  to: string;
  webhook_url: string;
}

function draftOf(channel?: Channel): ChannelDraft {
  const config = channel?.config ?? {};
  return {
    name: channel?.name ?? '',
    channel_type: channel?.channel_type ?? 'webhook',
    is_enabled: channel?.is_enabled ?? true,
    url: typeof config.url === 'string' ? config.url : '',
    secret: typeof config.secret === 'string' ? config.secret : '',
    headers: storedHeaders(config).map(([name, value]) => headerRow(name, value)),
    to: Array.isArray(config.to) ? config.to.join(', ') : typeof config.to === 'string' ? config.to : '',
    webhook_url: typeof config.webhook_url === 'string' ? config.webhook_url : '',
  };
}

/** Rows left entirely empty are ignored; anything else wrong is named before the request is sent. */
function headerProblem(rows: HeaderRow[]): string | null {
  const filled = rows.filter((row) => row.name.trim() || row.value);
  if (filled.length > MAX_HEADERS) return `At most ${MAX_HEADERS} headers.`;
  const seen = new Set<string>();
  for (const row of filled) {
    const name = row.name.trim();
    if (!name) return 'Every header needs a name.';
    if (!HEADER_NAME.test(name)) return `"${name}" is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~ only).`;
    if (seen.has(name.toLowerCase())) return `The header ${name} is listed twice.`;
    seen.add(name.toLowerCase());
    if (/[\r\n]/.test(row.value)) return `The value of ${name} must be a single line.`;
  }
  return null;
}

/**
 * `stored` is the channel's config as the API showed it. Secrets it showed masked go back as shown,
 * which keeps them; a secret or the headers cleared in the form are removed with null.
 */
function configOf(draft: ChannelDraft, stored?: Record<string, unknown>): Record<string, unknown> {
  switch (draft.channel_type) {
    case 'webhook': {
      const config: Record<string, unknown> = { url: draft.url.trim() };
      if (draft.secret) config.secret = draft.secret;
      else if (typeof stored?.secret === 'string') config.secret = null;
      const rows = draft.headers.filter((row) => row.name.trim() || row.value);
      if (rows.length) config.headers = Object.fromEntries(rows.map((row) => [row.name.trim(), row.value]));
      else if (stored && storedHeaders(stored).length) config.headers = null;
      return config;
    }
    case 'email':
      return {
        to: draft.to
          .split(/[\s,;]+/)
          .map((address) => address.trim())
          .filter(Boolean),
      };
    case 'chat':
      return { webhook_url: draft.webhook_url.trim() };
  }
}

function ChannelForm({ channel, onDone, onCancel }: { channel?: Channel; onDone: () => void; onCancel: () => void }) {
  const [draft, setDraft] = useState<ChannelDraft>(() => draftOf(channel));
  const { busy, error, setError, run } = useSubmit();
  const set = (patch: Partial<ChannelDraft>) => setDraft({ ...draft, ...patch });
  const prefix = channel ? `ch-${channel.id}` : 'ch-new';

  const setHeaders = (headers: HeaderRow[]) => {
    set({ headers });
    // A complaint about the rows may no longer hold once they change.
    if (error) setError(null);
  };
  const setHeader = (key: number, patch: Partial<HeaderRow>) =>
    setHeaders(draft.headers.map((row) => (row.key === key ? { ...row, ...patch } : row)));

  const submit = async (event: Event) => {
    event.preventDefault();
    const problem = draft.channel_type === 'webhook' ? headerProblem(draft.headers) : null;
    if (problem) {
      setError(problem);
      return;
    }
    const saved = await run(async () => {
      const body = { name: draft.name.trim(), is_enabled: draft.is_enabled, config: configOf(draft, channel?.config) };
      if (channel) await call(client.PATCH('/api/alert-channels/{id}', { params: { path: { id: channel.id } }, body }));
      else await call(client.POST('/api/alert-channels', { body: { ...body, channel_type: draft.channel_type } }));
    });
    if (saved) onDone();
  };

  return (
    <form class="card form-grid" onSubmit={(event) => void submit(event)} aria-label={channel ? `Edit channel ${channel.name}` : 'New channel'}>
      <h2>{channel ? `Edit “${channel.name}”` : 'New notification channel'}</h2>
      <ErrorMessage error={error} />
      <label class="field">
        <span>Name</span>
        <input id={`${prefix}-name`} name="channel-name" required value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />
      </label>
      <label class="field">
        <span>Type</span>
        <select
          name="channel-type"
          value={draft.channel_type}
          disabled={Boolean(channel)}
          onChange={(e) => set({ channel_type: e.currentTarget.value as ChannelType })}
        >
          <option value="webhook">Webhook (HTTP POST of JSON)</option>
          <option value="email">E-mail</option>
          <option value="chat">Chat (Slack-compatible incoming webhook)</option>
        </select>
      </label>
      {draft.channel_type === 'webhook' && (
        <>
          <label class="field">
            <span>URL</span>
            <input name="webhook-url" type="url" required placeholder="https://example.com/hooks/errors" value={draft.url} onInput={(e) => set({ url: e.currentTarget.value })} />
          </label>
          <label class="field">
            <span>Signing secret (optional)</span>
            <input name="webhook-secret" autoComplete="off" value={draft.secret} onInput={(e) => set({ secret: e.currentTarget.value })} />
            <small class="hint">When set, each request carries an HMAC signature of its body.</small>
          </label>
          <fieldset class="field header-rows">
            <legend>Extra headers (optional)</legend>
            {draft.headers.length > 0 && (
              <ul class="header-list">
                {draft.headers.map((row, index) => (
                  <li key={row.key} class="header-row">
                    <input
                      class="mono header-name"
                      aria-label={`Header ${index + 1} name`}
                      placeholder="Authorization"
                      autoComplete="off"
                      spellcheck={false}
                      maxLength={100}
                      value={row.name}
                      onInput={(e) => setHeader(row.key, { name: e.currentTarget.value })}
                    />
                    <input
                      class="mono header-value"
                      aria-label={`Header ${index + 1} value`}
                      placeholder="Bearer …"
                      autoComplete="off"
                      spellcheck={false}
                      maxLength={4096}
                      value={row.value}
                      onInput={(e) => setHeader(row.key, { value: e.currentTarget.value })}
                    />
                    <button
                      type="button"
                      class="btn btn-small btn-danger"
                      aria-label={`Remove header ${index + 1}${row.name ? ` (${row.name})` : ''}`}
                      onClick={() => setHeaders(draft.headers.filter((other) => other.key !== row.key))}
                    >
                      Remove
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <div>
              <button
                type="button"
                class="btn btn-small"
                disabled={draft.headers.length >= MAX_HEADERS}
                onClick={() => setHeaders([...draft.headers, headerRow()])}
              >
                Add header
              </button>
            </div>
            <small class="hint">
              Sent with every request, e.g. an <code>Authorization</code> header the receiver expects. Saved values are shown masked; leave
              them as they are to keep them.
            </small>
          </fieldset>
        </>
      )}
      {draft.channel_type === 'email' && (
        <label class="field">
          <span>Recipients</span>
          <input name="email-to" required placeholder="ops@example.com, dev@example.com" value={draft.to} onInput={(e) => set({ to: e.currentTarget.value })} />
          <small class="hint">Separate several addresses with commas.</small>
        </label>
      )}
      {draft.channel_type === 'chat' && (
        <label class="field">
          <span>Incoming webhook URL</span>
          <input name="chat-webhook-url" type="url" required placeholder="https://hooks.slack.com/services/…" value={draft.webhook_url} onInput={(e) => set({ webhook_url: e.currentTarget.value })} />
        </label>
      )}
      <EnabledAndActions
        name="channel-enabled"
        enabled={draft.is_enabled}
        onEnabled={(is_enabled) => set({ is_enabled })}
        busy={busy}
        submitLabel={channel ? 'Save changes' : 'Create channel'}
        onCancel={onCancel}
      />
    </form>
  );
}

export function ChannelsPage() {
  useTitle('Notification channels');
  const manage = useCan()('channels:admin');
  const channels = useAsync(() => call(client.GET('/api/alert-channels')), []);
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [tests, setTests] = useState<Record<number, { success: boolean; message: string } | 'running'>>({});
  const list = Array.isArray(channels.data) ? channels.data : [];
  const { pending, error, act, toggle: switchRow } = useEnabledSwitch(list, channels.setData);

  const toggle = (channel: Channel) =>
    switchRow(channel, (is_enabled) => call(client.PATCH('/api/alert-channels/{id}', { params: { path: { id: channel.id } }, body: { is_enabled } })));

  const remove = async (channel: Channel) => {
    if (!window.confirm(`Delete the channel "${channel.name}"? Alert rules will stop notifying it.`)) return;
    await act(channel.id, async () => {
      await call(client.DELETE('/api/alert-channels/{id}', { params: { path: { id: channel.id } } }));
      channels.reload();
    });
  };

  const test = async (channel: Channel) => {
    setTests({ ...tests, [channel.id]: 'running' });
    try {
      const result = await call(client.POST('/api/alert-channels/{id}/test', { params: { path: { id: channel.id } } }));
      setTests((all) => ({ ...all, [channel.id]: result }));
    } catch (failure) {
      setTests((all) => ({ ...all, [channel.id]: { success: false, message: errorMessage(failure) } }));
    }
  };

  return (
    <>
      <PageHeader title="Settings" />
      <SettingsNav active="channels" />
      <div class="section-head">
        <p class="lead">
          Channels receive alerts when an alert rule of a project fires.
          {!manage && ' Only admins can add or change them.'}
        </p>
        {manage && editing !== 'new' && (
          <button type="button" class="btn btn-primary" onClick={() => setEditing('new')}>
            New channel
          </button>
        )}
      </div>
      {editing === 'new' && (
        <ChannelForm
          onCancel={() => setEditing(null)}
          onDone={() => {
            setEditing(null);
            channels.reload();
          }}
        />
      )}
      <ErrorMessage error={error} />
      <ErrorMessage error={channels.error} onRetry={channels.reload} />
      {channels.loading && !channels.data && <Loading label="Loading channels…" />}
      {channels.data && list.length === 0 && editing !== 'new' && (
        <Empty title="No notification channels yet.">Add a webhook, e-mail or chat channel, then use it in a project's alert rules.</Empty>
      )}
      <ul class="channel-list">
        {list.map((channel) =>
          editing === channel.id ? (
            <li key={channel.id}>
              <ChannelForm
                channel={channel}
                onCancel={() => setEditing(null)}
                onDone={() => {
                  setEditing(null);
                  channels.reload();
                }}
              />
            </li>
          ) : (
            <li key={channel.id} class="card channel-card">
              <div class="channel-main">
                <h3>
                  {channel.name} <Badge kind="neutral">{CHANNEL_LABELS[channel.channel_type] ?? channel.channel_type}</Badge>
                  {!channel.is_enabled && <Badge kind="muted">disabled</Badge>}
                </h3>
                <p class="mono small channel-target">{channelTarget(channel) || <span class="muted">no target</span>}</p>
                {channel.channel_type === 'webhook' && storedHeaders(channel.config ?? {}).length > 0 && (
                  <p class="small channel-headers">
                    <span class="muted">Headers: </span>
                    <span class="mono">{storedHeaders(channel.config ?? {}).map(([name]) => name).join(', ')}</span>
                  </p>
                )}
                <p class="muted small">
                  {channel.last_success_at ? (
                    <>
                      Last delivered <RelTime value={channel.last_success_at} />
                    </>
                  ) : (
                    'Nothing delivered yet'
                  )}
                  {typeof channel.failure_count === 'number' && channel.failure_count > 0 && (
                    <span class="text-danger"> · {channel.failure_count} failed in a row</span>
                  )}
                </p>
                {tests[channel.id] && tests[channel.id] !== 'running' && (
                  <p class={(tests[channel.id] as { success: boolean }).success ? 'alert alert-success' : 'alert alert-error'} role="status">
                    {(tests[channel.id] as { success: boolean }).success ? 'Test sent: ' : 'Test failed: '}
                    {(tests[channel.id] as { message: string }).message}
                  </p>
                )}
              </div>
              {manage && (
                <div class="channel-actions">
                  <label class="switch">
                    <input
                      type="checkbox"
                      checked={channel.is_enabled}
                      onChange={() => void toggle(channel)}
                      aria-label={`Enable ${channel.name}`}
                    />
                    <span>{channel.is_enabled ? 'Enabled' : 'Disabled'}</span>
                  </label>
                  <button type="button" class="btn btn-small" disabled={tests[channel.id] === 'running'} onClick={() => void test(channel)}>
                    {tests[channel.id] === 'running' ? 'Sending…' : 'Send test'}
                  </button>
                  <button type="button" class="btn btn-small" onClick={() => setEditing(channel.id)} aria-label={`Edit ${channel.name}`}>
                    Edit
                  </button>
                  <button
                    type="button"
                    class="btn btn-small btn-danger"
                    disabled={pending === channel.id}
                    onClick={() => void remove(channel)}
                    aria-label={`Delete ${channel.name}`}
                  >
                    Delete
                  </button>
                </div>
              )}
            </li>
          ),
        )}
      </ul>
    </>
  );
}
