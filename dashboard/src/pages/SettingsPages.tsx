import { useState } from 'preact/hooks';
import { api, Channel, ChannelType, errorMessage, Token } from '../api';
import { Badge, CopyButton, EnabledAndActions, Empty, ErrorMessage, Loading, PageHeader, RelTime, useAsync, useTitle } from '../components';

function SettingsNav({ active }: { active: 'tokens' | 'channels' }) {
  return (
    <nav class="tabs" aria-label="Settings sections">
      <a href="/settings/tokens" class={active === 'tokens' ? 'tab active' : 'tab'} aria-current={active === 'tokens' ? 'page' : undefined}>
        API tokens
      </a>
      <a href="/settings/channels" class={active === 'channels' ? 'tab active' : 'tab'} aria-current={active === 'channels' ? 'page' : undefined}>
        Notification channels
      </a>
    </nav>
  );
}

export function TokensPage() {
  useTitle('API tokens');
  const tokens = useAsync(() => api.get<{ data: Token[] }>('/api/tokens').then((r) => r.data), []);
  const [description, setDescription] = useState('');
  const [created, setCreated] = useState<Token | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<number | null>(null);

  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const token = await api.post<Token>('/api/tokens', { description: description.trim() });
      setCreated(token);
      setDescription('');
      tokens.reload();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  const remove = async (token: Token) => {
    if (!window.confirm(`Delete the token "${token.description}"? Clients using it will stop working.`)) return;
    setDeleting(token.id);
    setError(null);
    try {
      await api.del(`/api/tokens/${token.id}`);
      if (created?.id === token.id) setCreated(null);
      tokens.reload();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setDeleting(null);
    }
  };

  return (
    <>
      <PageHeader title="Settings" />
      <SettingsNav active="tokens" />
      <p class="lead">API tokens authenticate scripts and integrations against the REST API (<code>Authorization: Bearer &lt;token&gt;</code>).</p>

      {created && (
        <div class="card token-reveal" role="region" aria-labelledby="new-token-title">
          <h2 id="new-token-title">Token created: {created.description}</h2>
          <p class="warning-text" role="alert">
            Copy this token now. It is shown only once and cannot be retrieved later.
          </p>
          <div class="dsn-row">
            <input class="mono" readOnly aria-label="New API token" value={created.token} onFocus={(event) => event.currentTarget.select()} />
            <CopyButton text={created.token} label="Copy token" />
          </div>
          <button type="button" class="btn btn-small" onClick={() => setCreated(null)}>
            I have saved it
          </button>
        </div>
      )}

      <form class="card inline-form" onSubmit={(event) => void create(event)}>
        <label class="field grow">
          <span>Description</span>
          <input
            name="token-description"
            required
            maxLength={200}
            placeholder="e.g. CI deploy script"
            value={description}
            onInput={(event) => setDescription(event.currentTarget.value)}
          />
        </label>
        <button type="submit" class="btn btn-primary" disabled={busy || !description.trim()}>
          {busy ? 'Creating…' : 'Create token'}
        </button>
      </form>
      <ErrorMessage error={error} />
      <ErrorMessage error={tokens.error} onRetry={tokens.reload} />
      {tokens.loading && !tokens.data && <Loading label="Loading tokens…" />}
      {tokens.data && tokens.data.length === 0 && <Empty title="No API tokens yet." />}
      {tokens.data && tokens.data.length > 0 && (
        <div class="table-wrap">
          <table class="data-table">
            <thead>
              <tr>
                <th>Description</th>
                <th>Token</th>
                <th>Created</th>
                <th>Last used</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((token) => (
                <tr key={token.id}>
                  <td data-label="Description">{token.description}</td>
                  <td data-label="Token" class="mono token-masked">
                    {token.token}
                  </td>
                  <td data-label="Created">
                    <RelTime value={token.created_at} />
                  </td>
                  <td data-label="Last used">{token.last_used_at ? <RelTime value={token.last_used_at} /> : <span class="muted">never</span>}</td>
                  <td class="col-actions">
                    <button
                      type="button"
                      class="btn btn-tiny btn-danger"
                      disabled={deleting === token.id}
                      aria-label={`Delete token ${token.description}`}
                      onClick={() => void remove(token)}
                    >
                      {deleting === token.id ? 'Deleting…' : 'Delete'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

const CHANNEL_LABELS: Record<ChannelType, string> = { webhook: 'Webhook', email: 'E-mail', chat: 'Chat' };

function channelTarget(channel: Channel): string {
  const config = channel.config ?? {};
  if (channel.channel_type === 'webhook') return String(config.url ?? '');
  if (channel.channel_type === 'email') return Array.isArray(config.to) ? config.to.join(', ') : String(config.to ?? '');
  return String(config.webhook_url ?? '');
}

interface ChannelDraft {
  name: string;
  channel_type: ChannelType;
  is_enabled: boolean;
  url: string;
  secret: string;
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
    to: Array.isArray(config.to) ? config.to.join(', ') : typeof config.to === 'string' ? config.to : '',
    webhook_url: typeof config.webhook_url === 'string' ? config.webhook_url : '',
  };
}

function configOf(draft: ChannelDraft): Record<string, unknown> {
  switch (draft.channel_type) {
    case 'webhook':
      return draft.secret ? { url: draft.url.trim(), secret: draft.secret } : { url: draft.url.trim() };
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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (patch: Partial<ChannelDraft>) => setDraft({ ...draft, ...patch });
  const prefix = channel ? `ch-${channel.id}` : 'ch-new';

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { name: draft.name.trim(), is_enabled: draft.is_enabled, config: configOf(draft) };
      if (channel) await api.patch(`/api/alert-channels/${channel.id}`, body);
      else await api.post('/api/alert-channels', { ...body, channel_type: draft.channel_type });
      onDone();
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
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
  const channels = useAsync(() => api.get<Channel[]>('/api/alert-channels'), []);
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<number | null>(null);
  const [tests, setTests] = useState<Record<number, { success: boolean; message: string } | 'running'>>({});
  const list = Array.isArray(channels.data) ? channels.data : [];

  /** Optimistic: the switch moves at once and moves back if the API refuses. */
  const toggle = async (channel: Channel) => {
    const replace = (value: Partial<Channel>) =>
      channels.setData(list.map((c) => (c.id === channel.id ? { ...c, ...value } : c)));
    setPending(channel.id);
    setError(null);
    replace({ is_enabled: !channel.is_enabled });
    try {
      const updated = await api.patch<Channel>(`/api/alert-channels/${channel.id}`, { is_enabled: !channel.is_enabled });
      replace(updated);
    } catch (failure) {
      replace({ is_enabled: channel.is_enabled });
      setError(errorMessage(failure));
    } finally {
      setPending(null);
    }
  };

  const remove = async (channel: Channel) => {
    if (!window.confirm(`Delete the channel "${channel.name}"? Alert rules will stop notifying it.`)) return;
    setPending(channel.id);
    setError(null);
    try {
      await api.del(`/api/alert-channels/${channel.id}`);
      channels.reload();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setPending(null);
    }
  };

  const test = async (channel: Channel) => {
    setTests({ ...tests, [channel.id]: 'running' });
    try {
      const result = await api.post<{ success: boolean; message: string }>(`/api/alert-channels/${channel.id}/test`);
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
        <p class="lead">Channels receive alerts when an alert rule of a project fires.</p>
        {editing !== 'new' && (
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
            </li>
          ),
        )}
      </ul>
    </>
  );
}
