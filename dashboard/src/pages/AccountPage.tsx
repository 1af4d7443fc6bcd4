import { useState } from 'preact/hooks';
import { ROLE_HINTS, ROLE_LABELS, useSession } from '../access';
import { call, client, errorMessage, Session } from '../api';
import { Badge, ErrorMessage, FormFeedback, Loading, PageHeader, RelTime, useAsync, useTitle } from '../components';
import { DataTable } from '../lists';
import { useRowAction } from '../actions';
import { forgetPeople } from '../people';
import { useSsoSettings } from './LoginPage';
import { newPasswordProblem, NewPasswordFields, PasswordField } from './PasswordFields';
import { SettingsNav } from './SettingsNav';


function ProfileForm() {
  const { me, setMe } = useSession();
  const [name, setName] = useState(me.name);
  const [notifications, setNotifications] = useState(me.email_notifications);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const changed = name.trim() !== me.name || notifications !== me.email_notifications;

  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const updated = await call(
        client.PATCH('/auth/me', { body: { name: name.trim(), email_notifications: notifications } }),
      );
      setMe(updated);
      // Other pages name this account: they read the new name.
      forgetPeople();
      setName(updated.name);
      setNotifications(updated.email_notifications);
      setNotice('Profile saved.');
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={(event) => void save(event)} aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <dl class="account-facts">
        <div>
          <dt>E-mail</dt>
          <dd class="break-anywhere">{me.email}</dd>
        </div>
        <div>
          <dt>Role</dt>
          <dd>
            <Badge kind={`role-${me.role}`}>{ROLE_LABELS[me.role] ?? me.role}</Badge>{' '}
            <span class="muted small">{ROLE_HINTS[me.role]}</span>
          </dd>
        </div>
      </dl>
      <label class="field">
        <span>Name</span>
        <input
          name="name"
          autoComplete="name"
          maxLength={200}
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
      </label>
      <label class="check">
        <input
          type="checkbox"
          name="email-notifications"
          checked={notifications}
          aria-describedby="notifications-hint"
          onChange={(event) => setNotifications(event.currentTarget.checked)}
        />
        Personal e-mail notifications
      </label>
      <p class="hint notifications-hint" id="notifications-hint">
        E-mails to you about issues assigned to you, and alerts of rules that notify the assignee.
      </p>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || !changed}>
          {busy ? 'Saving…' : 'Save profile'}
        </button>
      </div>
      <FormFeedback error={error} notice={notice} />
    </form>
  );
}

function PasswordForm({ onChanged }: { onChanged: () => void }) {
  const { me } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const save = async (event: Event) => {
    event.preventDefault();
    setNotice(null);
    const problem = newPasswordProblem(next, repeat, 'new password');
    if (problem) {
      setError(problem);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await call(client.POST('/auth/password', { body: { current_password: current, new_password: next } }));
      setCurrent('');
      setNext('');
      setRepeat('');
      setNotice('Password changed. Your other sessions were signed out.');
      onChanged();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" noValidate onSubmit={(event) => void save(event)} aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      {/* For password managers: the account the new password belongs to. */}
      <input type="text" name="username" autoComplete="username" value={me.email ?? ''} hidden readOnly />
      <PasswordField label="Current password" name="current-password" autoComplete="current-password" value={current} onInput={setCurrent} />
      <div class="field-pair">
        <NewPasswordFields
          id="new-password"
          label="New password"
          repeatLabel="Repeat the new password"
          value={next}
          repeat={repeat}
          onValue={setNext}
          onRepeat={setRepeat}
        />
      </div>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || !current || !next}>
          {busy ? 'Changing…' : 'Change password'}
        </button>
      </div>
      <FormFeedback error={error} notice={notice} />
    </form>
  );
}

/** "Chrome on macOS" from a User-Agent header; the header itself is in the tooltip. */
export function describeAgent(agent: string | null): string {
  if (!agent) return 'Unknown device';
  const browser =
    [
      [/Edg\//, 'Edge'],
      [/OPR\/|Opera/, 'Opera'],
      [/Firefox\//, 'Firefox'],
      [/HeadlessChrome|Chrome\/|CriOS/, 'Chrome'],
      [/Safari\//, 'Safari'],
      [/curl\//, 'curl'],
    ].find(([pattern]) => (pattern as RegExp).test(agent))?.[1] ?? 'A browser';
  const system =
    [
      [/Android/, 'Android'],
      [/iPhone|iPad|iPod/, 'iOS'],
      [/Windows/, 'Windows'],
      [/Mac OS X|Macintosh/, 'macOS'],
      [/CrOS/, 'ChromeOS'],
      [/Linux/, 'Linux'],
    ].find(([pattern]) => (pattern as RegExp).test(agent))?.[1] ?? null;
  return system ? `${browser} on ${system}` : String(browser);
}

function SessionsCard({ reloadKey }: { reloadKey: number }) {
  const sessions = useAsync(
    () => call(client.GET('/auth/sessions')).then((r) => r.data),
    [reloadKey],
  );
  const { pending, error, act } = useRowAction<string>();
  // This browser's first, then the newest.
  const list = [...(sessions.data ?? [])].sort(
    (a, b) => Number(b.current) - Number(a.current) || b.created_at.localeCompare(a.created_at),
  );

  const end = (session: Session) =>
    act(session.id, async () => {
      await call(client.DELETE('/auth/sessions/{id}', { params: { path: { id: session.id } } }));
      sessions.setData(list.filter((other) => other.id !== session.id));
    });

  return (
    <section class="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <p class="muted small">Where your account is signed in. Signing a session out ends it at once.</p>
      <ErrorMessage error={error} />
      <ErrorMessage error={sessions.error} onRetry={sessions.reload} />
      {sessions.loading && !sessions.data && <Loading label="Loading sessions…" />}
      {list.length > 0 && (
        <DataTable wrapClass="flat" columns={['Device', 'IP address', 'Signed in', 'Expires', { label: 'Actions', hidden: true }]}>
          {list.map((session) => {
            const device = describeAgent(session.user_agent);
            return (
              <tr key={session.id}>
                <td data-label="Device" title={session.user_agent ?? undefined}>
                  {device}
                </td>
                <td data-label="IP address" class="mono">
                  {session.ip ?? <span class="muted">unknown</span>}
                </td>
                <td data-label="Signed in">
                  <RelTime value={session.created_at} />
                </td>
                <td data-label="Expires">
                  <RelTime value={session.expires_at} />
                </td>
                <td class="col-actions">
                  {session.current ? (
                    <Badge kind="neutral">this browser</Badge>
                  ) : (
                    <button
                      type="button"
                      class="btn btn-tiny btn-danger"
                      disabled={pending === session.id}
                      aria-label={`Sign out ${device} (${session.ip ?? 'unknown address'})`}
                      onClick={() => void end(session)}
                    >
                      {pending === session.id ? 'Signing out…' : 'Sign out'}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </section>
  );
}

/** Links the account to its identity at the provider: how admins and owners start using single sign-on. */
function SingleSignOnCard() {
  const { me } = useSession();
  const sso = useSsoSettings();
  if (!sso.data?.enabled) return null;
  return (
    <section class="card" aria-labelledby="sso-title">
      <h2 id="sso-title">Single sign-on</h2>
      {me.sso_linked ? (
        <p>This account signs in with {sso.data.name}.</p>
      ) : (
        <>
          <p class="muted small">
            Link this account to your identity at {sso.data.name} to sign in with it from now on.
          </p>
          <a class="btn" href="/auth/sso/start?link=1&next=%2Fsettings%2Faccount">
            Link your {sso.data.name} identity
          </a>
        </>
      )}
    </section>
  );
}

export function AccountPage() {
  useTitle('Your account');
  const { me } = useSession();
  const [sessionsKey, setSessionsKey] = useState(0);
  return (
    <>
      <PageHeader title="Settings" />
      <SettingsNav active="account" />
      {me.kind === 'token' ? (
        <p class="lead">This dashboard is signed in with an API token, which has no account of its own.</p>
      ) : (
        <div class="settings-stack">
          <ProfileForm />
          <PasswordForm onChanged={() => setSessionsKey((n) => n + 1)} />
          <SingleSignOnCard />
          <SessionsCard reloadKey={sessionsKey} />
          <p class="muted small">
            API tokens that act as you are on the <a href="/settings/tokens">API tokens</a> page.
          </p>
        </div>
      )}
    </>
  );
}
