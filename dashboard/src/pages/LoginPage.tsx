import { useState } from 'preact/hooks';
import { api, errorMessage, Me } from '../api';
import { ErrorMessage, useTitle } from '../components';

export function LoginPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  useTitle('Sign in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post('/auth/login', { email: email.trim(), password });
      onSignedIn(await api.get<Me>('/auth/me'));
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  };

  return (
    <main class="center-page" id="main">
      <form class="card narrow login" onSubmit={(event) => void submit(event)} aria-labelledby="login-title">
        <div class="login-brand">
          <img src="/favicon.svg" alt="" width="40" height="40" />
          <h1 id="login-title">Sign in to Error Tracker</h1>
        </div>
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
        <label class="field">
          <span>Password</span>
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        <button type="submit" class="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="hint">The first account is created with the CREATE_SUPERUSER setting (email:password) on the server.</p>
      </form>
    </main>
  );
}
