import { useState } from 'preact/hooks';
import { call, client, errorMessage, Me, SsoSettings } from '../api';
import { Async, ErrorMessage, Loading, useAsync, useTitle } from '../components';
import { useLocation } from '../router';
import { PasswordField } from './PasswordFields';
import { ssoErrorText } from '../sso-errors';

/** Without single sign-on (or before the server offers it), the password form alone. */
const PASSWORD_ONLY: SsoSettings = { enabled: false, name: '', password_login: true };

/** What the server offers for signing in; password sign-in alone when it cannot say. */
export function useSsoSettings(): Async<SsoSettings> {
  return useAsync(() => call(client.GET('/auth/sso')).catch(() => PASSWORD_ONLY), []);
}

/** Leaves for the identity provider, to come back to `next` (a path of this site) when given. */
export function SsoButton({ settings, next }: { settings: SsoSettings; next?: string | null }) {
  const back = next && next.startsWith('/') && !next.startsWith('//') ? next : null;
  return (
    <a class="btn btn-block sso-button" href={`/auth/sso/start${back ? `?next=${encodeURIComponent(back)}` : ''}`}>
      Sign in with {settings.name || 'single sign-on'}
    </a>
  );
}

export function LoginPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  useTitle('Sign in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const location = useLocation();
  // Where a refused single sign-on sends the browser back to, with the reason as a code.
  const ssoError = location.query.get('sso_error');
  const sso = useSsoSettings();
  const settings = sso.data ?? PASSWORD_ONLY;
  const passwordForm = !settings.enabled || settings.password_login !== false;

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await call(client.POST('/auth/login', { body: { email: email.trim(), password } }));
      onSignedIn(await call(client.GET('/auth/me')));
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  };

  return (
    <main class="center-page" id="main">
      <div class="card narrow login">
        <div class="login-brand">
          <img src="/favicon.svg" alt="" width="40" height="40" />
          <h1 id="login-title">Sign in to Error Tracker</h1>
        </div>
        {sso.loading && !sso.data ? (
          <Loading />
        ) : (
          <>
            {ssoError && <ErrorMessage error={`Single sign-on failed. ${ssoErrorText(ssoError)}`} />}
            {settings.enabled && <SsoButton settings={settings} next={location.query.get('next')} />}
            {settings.enabled && passwordForm && (
              <p class="or-line" aria-hidden="true">
                <span>or</span>
              </p>
            )}
            {passwordForm && (
              <form onSubmit={(event) => void submit(event)} aria-labelledby="login-title">
                <ErrorMessage error={error} />
                <label class="field">
                  <span>E-mail</span>
                  <input
                    type="email"
                    name="email"
                    autoComplete="username"
                    required
                    autoFocus
                    value={email}
                    onInput={(event) => setEmail(event.currentTarget.value)}
                  />
                </label>
                <PasswordField label="Password" name="password" autoComplete="current-password" value={password} onInput={setPassword} />
                <button type="submit" class="btn btn-primary btn-block" disabled={busy}>
                  {busy ? 'Signing in…' : 'Sign in'}
                </button>
                {!settings.enabled && (
                  <p class="hint">
                    The first account is created with the CREATE_SUPERUSER setting (email:password) on the
                    server.
                  </p>
                )}
              </form>
            )}
            {!passwordForm && (
              <p class="hint">
                Accounts of this tracker sign in through {settings.name || 'single sign-on'} only.
              </p>
            )}
          </>
        )}
      </div>
    </main>
  );
}
