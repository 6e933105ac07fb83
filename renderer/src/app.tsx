import { Suspense, useCallback, useEffect, useState } from 'react';
import { ROLE_LABELS, type SessionInfo } from '../../common/contract/admin.ts';
import { ErrorAnswer } from '../../common/contract/errors.ts';
import { setCsrfToken, setSignedOutHandler } from './api/client.ts';
import { getSession, getSetupStatus, signOut as endSession } from './api/session.ts';
import { useRoute } from './router.ts';
import { SCREENS } from './screens/index.ts';
import { SetupScreen, SignInScreen } from './screens/auth/auth.tsx';
import { BackupWarning } from './screens/settings/backup-settings.tsx';
import { DiskWarning } from './components/disk-warning.tsx';
import { SessionContext } from './session.tsx';
import { useOpenHandoffs } from './components/handoff-count.tsx';

type State = { kind: 'loading' } | { kind: 'setup' } | { kind: 'signin'; ended?: boolean } | { kind: 'ready'; session: SessionInfo } | { kind: 'error'; message: string };

export function App() {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const route = useRoute();

  const signedIn = useCallback((session: SessionInfo) => {
    setCsrfToken(session.csrfToken);
    setState({ kind: 'ready', session });
    if (!window.location.hash || window.location.hash === '#/setup') window.location.hash = '#/knowledge';
  }, []);

  useEffect(() => {
    setSignedOutHandler(() => {
      setCsrfToken(null);
      setState({ kind: 'signin', ended: true });
    });
    (async () => {
      try {
        if ((await getSetupStatus()).needsOwner) return setState({ kind: 'setup' });
        signedIn(await getSession());
      } catch (e) {
        if (e instanceof ErrorAnswer && e.status === 401) setState({ kind: 'signin' });
        else setState({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
      }
    })();
  }, [signedIn]);

  const signOut = useCallback(async () => {
    await endSession().catch(() => undefined);
    setCsrfToken(null);
    setState({ kind: 'signin' });
  }, []);

  if (state.kind === 'loading') return <p className="loading" role="status">Loading…</p>;
  if (state.kind === 'error') return <p className="error" role="alert">LocalIQ is not reachable: {state.message}</p>;
  if (state.kind === 'setup') return <SetupScreen onSignedIn={signedIn} />;
  if (state.kind === 'signin') return <SignInScreen onSignedIn={signedIn} sessionEnded={state.ended ?? false} />;

  return <SignedIn session={state.session} signOut={signOut} route={route} />;
}

/** The signed-in layout: the navigation (with the Inbox's count of open questions) and the current screen. */
function SignedIn({ session, signOut, route }: { session: SessionInfo; signOut: () => Promise<void>; route: string[] }) {
  const openHandoffs = useOpenHandoffs();
  const current = SCREENS.find((s) => s.path === route[0]) ?? SCREENS[0]!;
  const Screen = current.component;
  return (
    <SessionContext.Provider value={{ session, signOut }}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="layout">
        <nav className="sidebar" aria-label="Main">
          <p className="brand">LocalIQ</p>
          <ul>
            {SCREENS.map((s) => (
              <li key={s.path}>
                <a href={`#/${s.path}`} aria-current={s === current ? 'page' : undefined}>
                  {s.label}
                  {s.path === 'inbox' && openHandoffs > 0 ? (
                    <span className="nav-count">
                      {openHandoffs}
                      <span className="sr-only"> open</span>
                    </span>
                  ) : null}
                </a>
              </li>
            ))}
          </ul>
          <div className="account">
            <p>
              <span className="user">{session.user.username}</span>
              <span className="hint">{ROLE_LABELS[session.user.role]}</span>
            </p>
            <button type="button" className="secondary" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        </nav>
        <main id="main" tabIndex={-1}>
          <DiskWarning />
          {session.user.role === 'owner' && current.path !== 'settings' ? <BackupWarning /> : null}
          <Suspense fallback={<p className="loading" role="status">Loading…</p>}>
            <Screen key={current.path} route={route} />
          </Suspense>
        </main>
      </div>
    </SessionContext.Provider>
  );
}
