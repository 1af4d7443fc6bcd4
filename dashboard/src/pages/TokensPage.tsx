import { useState } from 'preact/hooks';
import { personName, useMe } from '../access';
import { call, client, errorMessage, Project, Token } from '../api';
import { Badge, CheckboxPicker, CopyButton, Empty, ErrorMessage, Loading, PageHeader, RelTime, useAsync, useTitle } from '../components';
import { DataTable } from '../lists';
import { useMembers } from '../people';
import { SettingsNav } from './SettingsNav';

export function TokensPage() {
  useTitle('API tokens');
  const me = useMe();
  const tokens = useAsync(() => call(client.GET('/api/tokens')).then((r) => r.data), []);
  // Names for the project limits and for whose tokens an admin sees; the page works without them.
  const projects = useAsync(
    () =>
      call(client.GET('/api/projects'))
        .then((r) => r.data)
        .catch(() => [] as Project[]),
    [],
  );
  const members = useMembers();
  const [description, setDescription] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [scope, setScope] = useState<'all' | 'some'>('all');
  const [chosen, setChosen] = useState<number[]>([]);
  const [created, setCreated] = useState<Token | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<number | null>(null);
  const projectList = projects.data ?? [];
  const projectName = (id: number) =>
    projectList.find((project) => project.id === id)?.name ?? `Project #${id}`;
  const ownerName = (id: number | null | undefined) => {
    if (id === null || id === undefined) return 'Operator';
    const member = members.data?.find((candidate) => candidate.id === id);
    return member ? personName(member) : `Account #${id}`;
  };
  const list = tokens.data ?? [];
  // Only owners remove an owner's tokens.
  const mayDelete = (token: Token) =>
    token.user_id === me.user_id ||
    me.role === 'owner' ||
    members.data?.find((member) => member.id === token.user_id)?.role !== 'owner';
  // Admins see everyone's tokens: then each row says whose it is.
  const showOwner = list.some((token) => token.user_id !== me.user_id);

  const create = async (event: Event) => {
    event.preventDefault();
    if (scope === 'some' && chosen.length === 0) {
      setError('Choose at least one project, or let the token see every project.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const token = await call(
        client.POST('/api/tokens', {
          body: {
            description: description.trim(),
            read_only: readOnly,
            ...(scope === 'some' ? { project_ids: chosen } : {}),
          },
        }),
      );
      setCreated(token);
      setDescription('');
      setReadOnly(false);
      setScope('all');
      setChosen([]);
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
      await call(client.DELETE('/api/tokens/{id}', { params: { path: { id: token.id } } }));
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
      <p class="lead">
        API tokens authenticate scripts and integrations against the REST API (
        <code>Authorization: Bearer &lt;token&gt;</code>). A token acts as your account, with your role,
        narrowed further if you choose.
      </p>

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

      <form
        class="card token-form"
        onSubmit={(event) => void create(event)}
        aria-labelledby="token-form-title"
      >
        <h2 id="token-form-title">New token</h2>
        <label class="field">
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
        <label class="check">
          <input
            type="checkbox"
            name="token-read-only"
            checked={readOnly}
            onChange={(event) => setReadOnly(event.currentTarget.checked)}
          />
          <span>
            Read-only{' '}
            <span class="muted small">(GET requests only: it can read issues and events, not change them)</span>
          </span>
        </label>
        <fieldset class="field token-scope">
          <legend>Projects</legend>
          <label class="check">
            <input
              type="radio"
              name="token-scope"
              checked={scope === 'all'}
              onChange={() => setScope('all')}
            />
            Every project you can see
          </label>
          <label class="check">
            <input
              type="radio"
              name="token-scope"
              checked={scope === 'some'}
              onChange={() => setScope('some')}
            />
            Only some projects
          </label>
          {scope === 'some' && (
            <div class="check-list scope-projects" role="group" aria-label="Projects the token may use">
              {projectList.length === 0 && (
                <p class="muted small">{projects.loading ? 'Loading projects…' : 'No projects to choose from.'}</p>
              )}
              <CheckboxPicker
                options={projectList.map((project) => ({ id: project.id, label: project.name }))}
                chosen={chosen}
                onChange={setChosen}
              />
            </div>
          )}
          <small class="hint">
            A token limited to projects cannot manage members, channels or other accounts' things.
          </small>
        </fieldset>
        <ErrorMessage error={error} />
        <button type="submit" class="btn btn-primary" disabled={busy || !description.trim()}>
          {busy ? 'Creating…' : 'Create token'}
        </button>
      </form>
      <ErrorMessage error={tokens.error} onRetry={tokens.reload} />
      {tokens.loading && !tokens.data && <Loading label="Loading tokens…" />}
      {tokens.data && list.length === 0 && <Empty title="No API tokens yet." />}
      {list.length > 0 && (
        <DataTable columns={['Description', 'Token', 'Access', 'Projects', showOwner && 'Account', 'Created', 'Last used', { label: 'Actions', hidden: true }]}>
          {list.map((token) => (
            <tr key={token.id}>
              <td data-label="Description">{token.description}</td>
              <td data-label="Token" class="mono token-masked">
                {token.token}
              </td>
              <td data-label="Access">
                {token.read_only ? <Badge kind="neutral">read-only</Badge> : 'Read and write'}
              </td>
              <td data-label="Projects">
                {token.project_ids ? (
                  token.project_ids.map(projectName).join(', ')
                ) : (
                  <span class="muted">All you see</span>
                )}
              </td>
              {showOwner && (
                <td data-label="Account">
                  {token.user_id === me.user_id ? <span class="muted">You</span> : ownerName(token.user_id)}
                </td>
              )}
              <td data-label="Created">
                <RelTime value={token.created_at} />
              </td>
              <td data-label="Last used">{token.last_used_at ? <RelTime value={token.last_used_at} /> : <span class="muted">never</span>}</td>
              <td class="col-actions">
                {mayDelete(token) && (
                  <button
                    type="button"
                    class="btn btn-tiny btn-danger"
                    disabled={deleting === token.id}
                    aria-label={`Delete token ${token.description}`}
                    onClick={() => void remove(token)}
                  >
                    {deleting === token.id ? 'Deleting…' : 'Delete'}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
