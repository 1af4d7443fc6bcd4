import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { can, personName, ROLE_HINTS, ROLE_LABELS, SessionContext } from './access';
import { call, client, errorMessage, Me, setForbiddenHandler, setUnauthorizedHandler } from './api';
import { ErrorMessage, Loading, NoAccess } from './components';
import { forgetPeople } from './people';
import { AccountPage } from './pages/AccountPage';
import { AuditLogPage } from './pages/AuditLogPage';
import { InvitationPage } from './pages/InvitationPage';
import { IssuePage } from './pages/IssuePage';
import { IssuesPage } from './pages/IssuesPage';
import { LoginPage } from './pages/LoginPage';
import { MembersPage } from './pages/MembersPage';
import { TeamsPage } from './pages/TeamsPage';
import { ProjectAlertsPage } from './pages/ProjectAlertsPage';
import { ProjectSettingsPage } from './pages/ProjectSettingsPage';
import { ProjectsPage } from './pages/ProjectsPage';
import { ReleasePage } from './pages/ReleasePage';
import { ReleasesPage } from './pages/ReleasesPage';
import { SourceMapsPage } from './pages/SourceMapsPage';
import { ChannelsPage } from './pages/ChannelsPage';
import { TokensPage } from './pages/TokensPage';
import { UsagePage } from './pages/UsagePage';
import { FeedbackPage } from './pages/FeedbackPage';
import { CronMonitorFormPage } from './pages/CronMonitorForm';
import { CronMonitorPage } from './pages/CronMonitorPage';
import { MonitorsPage } from './pages/MonitorsPage';
import { PublicStatusPage } from './pages/PublicStatusPage';
import { UptimeMonitorFormPage } from './pages/UptimeMonitorForm';
import { UptimeMonitorPage } from './pages/UptimeMonitorPage';
import { interceptLinks, match, navigate, useLocation } from './router';
import './styles.css';

function NotFound() {
  return (
    <div class="card">
      <h1>Page not found</h1>
      <p>There is nothing at this address. If you followed a link while the server was restarting, try again.</p>
      <p class="inline-actions">
        <button type="button" class="btn btn-small" onClick={() => window.location.reload()}>
          Retry
        </button>
        <a href="/">Back to projects</a>
      </p>
    </div>
  );
}

/**
 * After a navigation, focus goes to the new page's heading (so screen readers announce it and the
 * keyboard starts there), once the page has rendered it: most pages show a spinner first.
 */
function focusHeadingOnceShown(): () => void {
  const main = document.getElementById('main');
  if (!main) return () => undefined;
  const focus = (): boolean => {
    const heading = main.querySelector<HTMLElement>('h1');
    if (!heading) return false;
    if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: true });
    return true;
  };
  if (focus()) return () => undefined;
  const observer = new MutationObserver(() => {
    if (focus()) observer.disconnect();
  });
  observer.observe(main, { childList: true, subtree: true });
  const timer = window.setTimeout(() => observer.disconnect(), 10_000);
  return () => {
    observer.disconnect();
    window.clearTimeout(timer);
  };
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

function Routes({ path, me }: { path: string; me: Me }) {
  let params: Record<string, string> | null;
  if (path === '/' || path === '/projects') return <ProjectsPage />;
  if ((params = match('/projects/:id', path))) return <Redirect to={`/projects/${params.id}/issues`} />;
  if ((params = match('/projects/:id/issues', path))) return <IssuesPage projectId={Number(params.id)} />;
  if ((params = match('/projects/:id/releases', path))) return <ReleasesPage projectId={Number(params.id)} />;
  if ((params = match('/projects/:id/releases/:version', path))) {
    return <ReleasePage key={params.version} projectId={Number(params.id)} version={params.version} />;
  }
  if ((params = match('/projects/:id/alerts', path))) return <ProjectAlertsPage projectId={Number(params.id)} />;
  if ((params = match('/projects/:id/settings', path))) return <ProjectSettingsPage projectId={Number(params.id)} />;
  if ((params = match('/projects/:id/settings/:section', path))) {
    return <ProjectSettingsPage projectId={Number(params.id)} section={params.section} />;
  }
  if ((params = match('/projects/:id/source-maps', path))) return <SourceMapsPage projectId={Number(params.id)} />;
  if ((params = match('/projects/:id/usage', path))) return <UsagePage projectId={Number(params.id)} />;
  if ((params = match('/projects/:id/feedback', path))) return <FeedbackPage projectId={Number(params.id)} />;
  if ((params = match('/projects/:id/monitors', path))) return <MonitorsPage projectId={Number(params.id)} />;
  if ((params = match('/projects/:id/monitors/cron/new', path))) return <CronMonitorFormPage projectId={Number(params.id)} />;
  if ((params = match('/projects/:id/monitors/cron/:slug', path))) {
    return <CronMonitorPage key={params.slug} projectId={Number(params.id)} slug={params.slug} />;
  }
  if ((params = match('/projects/:id/monitors/cron/:slug/edit', path))) {
    return <CronMonitorFormPage key={params.slug} projectId={Number(params.id)} slug={params.slug} />;
  }
  if ((params = match('/projects/:id/monitors/uptime/new', path))) return <UptimeMonitorFormPage projectId={Number(params.id)} />;
  if ((params = match('/projects/:id/monitors/uptime/:monitorId', path))) {
    return <UptimeMonitorPage key={params.monitorId} projectId={Number(params.id)} monitorId={Number(params.monitorId)} />;
  }
  if ((params = match('/projects/:id/monitors/uptime/:monitorId/edit', path))) {
    return <UptimeMonitorFormPage key={params.monitorId} projectId={Number(params.id)} monitorId={Number(params.monitorId)} />;
  }
  if ((params = match('/issues/:id', path))) return <IssuePage issueId={Number(params.id)} />;
  // The form of the links that alerts send (see issueUrl in src/alerts/alert-notification.ts).
  if ((params = match('/projects/:projectId/issues/:id', path))) return <Redirect to={`/issues/${params.id}`} />;
  if (path === '/members') {
    return can(me, 'members:read') ? <MembersPage /> : <NoAccess what="see the members" role={me.role} />;
  }
  if (path === '/members/teams') {
    return can(me, 'members:read') ? <TeamsPage /> : <NoAccess what="see the teams" role={me.role} />;
  }
  if (path === '/settings') return <Redirect to="/settings/tokens" />;
  if (path === '/settings/account') return <AccountPage />;
  if (path === '/settings/tokens') return <TokensPage />;
  if (path === '/settings/channels') {
    if (!can(me, 'channels:read')) return <NoAccess what="see the alert channels" role={me.role} />;
    return <ChannelsPage />;
  }
  if (path === '/settings/audit-log') {
    return can(me, 'audit:read') ? <AuditLogPage /> : <NoAccess what="read the audit log" role={me.role} />;
  }
  return <NotFound />;
}

function NavLink({ href, current, children }: { href: string; current: boolean; children: string }) {
  return (
    <a href={href} class={current ? 'nav-link active' : 'nav-link'} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

function App() {
  const location = useLocation();
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [bootError, setBootError] = useState<string | null>(null);
  const [signingOut, setSigningOut] = useState(false);

  // /auth/session, not /auth/me: signed out is an answer (`user: null`), not a 401 in the console.
  const checkSession = () => {
    setBootError(null);
    call(client.GET('/auth/session')).then(
      (value) => setMe(value.user),
      (error: unknown) => setBootError(errorMessage(error)),
    );
  };

  // A refusal (403) may mean the account's role changed while the page was open: ask what it may do
  // now, so that the controls it lost disappear, and say so.
  const [roleNotice, setRoleNotice] = useState<string | null>(null);
  const current = useRef<Me | null | undefined>(undefined);
  current.current = me;
  const rechecking = useRef(false);
  const recheckPermissions = () => {
    if (rechecking.current) return;
    rechecking.current = true;
    call(client.GET('/auth/me'))
      .then((fresh) => {
        const before = current.current;
        if (before && (before.role !== fresh.role || before.permissions.join() !== fresh.permissions.join())) {
          setRoleNotice(
            before.role !== fresh.role
              ? `Your role was changed to ${ROLE_LABELS[fresh.role]} while this page was open. A ${fresh.role} can ${ROLE_HINTS[fresh.role]}; what you can no longer do is now hidden.`
              : 'What your account may do was changed while this page was open; what you can no longer do is now hidden.',
          );
        }
        setMe(fresh);
      })
      .catch(() => undefined)
      .finally(() => {
        rechecking.current = false;
      });
  };

  useEffect(() => {
    setUnauthorizedHandler(() => setMe(null));
    setForbiddenHandler(recheckPermissions);
    checkSession();
  }, []);

  // What one account was shown of the members and teams is not for the next one to sign in here.
  useEffect(() => forgetPeople(), [me?.user_id]);

  const path = location.path;
  // Not on the first page load: there the browser's own focus handling applies.
  const navigated = useRef(false);
  useEffect(() => {
    if (!navigated.current) {
      navigated.current = true;
      return;
    }
    return focusHeadingOnceShown();
  }, [path]);
  const onLogin = path === '/login';
  // Invitation links are opened signed out, by people who have no account yet.
  const invitation = match('/invitations/:secret', path);

  useEffect(() => {
    if (invitation) return;
    if (me === null && !onLogin) {
      const next = path + window.location.search;
      navigate(`/login${next !== '/' ? `?next=${encodeURIComponent(next)}` : ''}`, { replace: true });
    }
    if (me && onLogin) navigate(safeNext(location.query.get('next')), { replace: true });
  }, [me, onLogin, path]);

  if (invitation) {
    return (
      <InvitationPage
        secret={invitation.secret}
        signedInAs={me ?? null}
        onAccepted={(user) => {
          setMe(user);
          navigate('/', { replace: true });
        }}
      />
    );
  }
  if (bootError) {
    return (
      <main class="center-page">
        <div class="card narrow">
          <h1>Error Tracker</h1>
          <ErrorMessage error={bootError} onRetry={checkSession} />
        </div>
      </main>
    );
  }
  if (me === undefined) {
    return (
      <main class="center-page">
        <Loading />
      </main>
    );
  }
  if (me === null || onLogin) {
    return <LoginPage onSignedIn={(user) => setMe(user)} />;
  }

  const signOut = async () => {
    setSigningOut(true);
    try {
      await call(client.POST('/auth/logout'));
    } catch {
      // the session is dropped client-side anyway
    }
    setSigningOut(false);
    setMe(null);
    navigate('/login', { replace: true });
  };

  const section = path.startsWith('/settings')
    ? 'settings'
    : path.startsWith('/members')
      ? 'members'
      : 'projects';
  const shownName = me.kind === 'token' ? me.name || `token #${me.id}` : personName(me);
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a href="/" class="brand" aria-label="Error Tracker home">
          <img src="/favicon.svg" alt="" width="24" height="24" />
          <span>Error Tracker</span>
        </a>
        <nav aria-label="Main" class="nav">
          <NavLink href="/" current={section === 'projects'}>
            Projects
          </NavLink>
          {can(me, 'members:read') && (
            <NavLink href="/members" current={section === 'members'}>
              Members
            </NavLink>
          )}
          <NavLink href="/settings/tokens" current={section === 'settings'}>
            Settings
          </NavLink>
        </nav>
        <div class="topbar-user">
          {me.kind === 'user' ? (
            <a href="/settings/account" class="user-email" title={`Your account: ${me.email ?? shownName}`}>
              {shownName}
            </a>
          ) : (
            <span class="user-email">{shownName}</span>
          )}
          <button type="button" class="btn btn-small btn-ghost-light" onClick={() => void signOut()} disabled={signingOut}>
            {signingOut ? 'Signing out…' : 'Sign out'}
          </button>
        </div>
      </header>
      <main id="main" class="container" tabIndex={-1}>
        {roleNotice && (
          <div class="alert alert-info role-notice" role="status">
            <span>{roleNotice}</span>
            <button type="button" class="btn btn-small" onClick={() => setRoleNotice(null)}>
              Dismiss
            </button>
          </div>
        )}
        <SessionContext.Provider value={{ me, setMe }}>
          <Routes path={path} me={me} />
        </SessionContext.Provider>
      </main>
    </>
  );
}

/** Only same-site paths are followed after sign-in. */
function safeNext(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/login')) return '/';
  return next;
}

interceptLinks();
// The public status page is its own small app: shown to anyone, it never asks who is signed in.
const statusPage = match('/status/:slug', window.location.pathname);
render(statusPage ? <PublicStatusPage slug={statusPage.slug} /> : <App />, document.getElementById('app')!);
