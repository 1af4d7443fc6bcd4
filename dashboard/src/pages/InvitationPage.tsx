import { useState } from 'preact/hooks';
import { personName, ROLE_HINTS, ROLE_LABELS } from '../access';
import { ApiError, call, client, errorMessage, Me } from '../api';
import { ErrorMessage, Loading, RelTime, useAsync, useTitle } from '../components';
import { SsoButton, useSsoSettings } from './LoginPage';
import { newPasswordProblem, NewPasswordFields } from './PasswordFields';


/** The link itself is the problem (unknown, used, revoked, expired): asking again will not help. */
function final(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || error.status === 410);
}

/** Why a link cannot be used, in words for the invitee, from the API's status and message. */
function unusable(error: unknown): { title: string; text: string } {
  if (error instanceof ApiError && error.status === 404) {
    return {
      title: 'This invitation link is not valid',
      text: 'Check that the whole link was copied, or ask an admin of the tracker for a new invitation.',
    };
  }
  if (error instanceof ApiError && error.status === 410) {
    const message = error.message.replace(/^this invitation /i, '');
    const accepted = /accepted/i.test(message);
    return {
      title: accepted ? 'This invitation has been used already' : 'This invitation can no longer be used',
      text: accepted
        ? 'An account was made with it. If it is yours, sign in; otherwise ask an admin for a new invitation.'
        : `It ${message}. Ask an admin of the tracker to invite you again.`,
    };
  }
  return { title: 'The invitation could not be loaded', text: errorMessage(error) };
}

/** Where an invitation link leads: shown signed out; accepting makes the account and signs it in. */
export function InvitationPage({
  secret,
  signedInAs,
  onAccepted,
}: {
  secret: string;
  signedInAs: Me | null;
  onAccepted: (me: Me) => void;
}) {
  useTitle('Accept invitation');
  const [failure, setFailure] = useState<unknown>(null);
  const preview = useAsync(() => {
    setFailure(null);
    return call(client.GET('/auth/invitations/{secret}', { params: { path: { secret } } })).catch(
      (error: unknown) => {
        setFailure(error);
        throw error;
      },
    );
  }, [secret]);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [gone, setGone] = useState<{ title: string; text: string } | null>(null);
  const sso = useSsoSettings();
  // Without passwords, the invitation is taken up by signing in through the identity provider.
  const passwordForm = !sso.data?.enabled || sso.data.password_login !== false;

  const submit = async (event: Event) => {
    event.preventDefault();
    const invited = preview.data;
    if (!invited) return;
    if (email.trim().toLowerCase() !== invited.email.toLowerCase()) {
      setError(`Type the address the invitation was sent to (${invited.email}).`);
      return;
    }
    const problem = newPasswordProblem(password, repeat, 'password');
    if (problem) {
      setError(problem);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await call(
        client.POST('/auth/invitations/{secret}/accept', {
          params: { path: { secret } },
          body: { email: email.trim(), password, ...(name.trim() ? { name: name.trim() } : {}) },
        }),
      );
      onAccepted(await call(client.GET('/auth/me')));
    } catch (failed) {
      // Used or revoked while the form was open: the form is of no use any more.
      if (final(failed)) setGone(unusable(failed));
      else setError(errorMessage(failed));
      setBusy(false);
    }
  };

  const problem = gone ?? (failure ? unusable(failure) : null);
  return (
    <main class="center-page" id="main">
      <div class="card narrow login invitation">
        <div class="login-brand">
          <img src="/favicon.svg" alt="" width="40" height="40" />
          <h1 id="invitation-title">{problem ? problem.title : 'Join Error Tracker'}</h1>
        </div>
        {problem && (
          <>
            <p class="alert alert-error" role="alert">
              {problem.text}
            </p>
            {!gone && !final(failure) && (
              <button type="button" class="btn btn-small" onClick={preview.reload}>
                Retry
              </button>
            )}
            <p class="small">
              <a href="/login">Go to sign-in</a>
            </p>
          </>
        )}
        {!problem && preview.loading && <Loading label="Checking the invitation…" />}
        {!problem && preview.data && (
          <>
            <p>
              You are invited as <strong>{ROLE_LABELS[preview.data.role] ?? preview.data.role}</strong> (
              {ROLE_HINTS[preview.data.role] ?? 'a role of the tracker'}) for{' '}
              <strong class="break-anywhere">{preview.data.email}</strong>.
            </p>
            <p class="muted small">
              The link expires <RelTime value={preview.data.expires_at} />.
            </p>
            {signedInAs && (
              <p class="alert alert-info small">
                You are signed in as {personName(signedInAs)}. Accepting makes a new account and signs you in
                with it instead.
              </p>
            )}
            {sso.data?.enabled && (
              <>
                <SsoButton settings={sso.data} next="/" />
                <p class="hint">
                  With your {preview.data.email} account there: the invitation is taken up as you sign in.
                </p>
                {passwordForm && (
                  <p class="or-line" aria-hidden="true">
                    <span>or choose a password</span>
                  </p>
                )}
              </>
            )}
            {passwordForm && (
              <form onSubmit={(event) => void submit(event)} aria-labelledby="invitation-title" noValidate>
                <ErrorMessage error={error} />
                <div class="field">
                  <label for="invitation-email">E-mail</label>
                  <input
                    id="invitation-email"
                    type="email"
                    name="email"
                    autoComplete="username"
                    required
                    autoFocus
                    aria-describedby="invitation-email-hint"
                    value={email}
                    onInput={(event) => setEmail(event.currentTarget.value)}
                  />
                  <small class="hint" id="invitation-email-hint">
                    The address the invitation was sent to, typed again.
                  </small>
                </div>
                <label class="field">
                  <span>Your name (optional)</span>
                  <input
                    name="name"
                    autoComplete="name"
                    maxLength={200}
                    value={name}
                    onInput={(event) => setName(event.currentTarget.value)}
                  />
                </label>
                <NewPasswordFields
                  id="invitation-password"
                  label="Password"
                  repeatLabel="Repeat the password"
                  value={password}
                  repeat={repeat}
                  onValue={setPassword}
                  onRepeat={setRepeat}
                />
                <button type="submit" class="btn btn-primary btn-block" disabled={busy}>
                  {busy ? 'Creating your account…' : 'Accept and create account'}
                </button>
              </form>
            )}
          </>
        )}
      </div>
    </main>
  );
}
