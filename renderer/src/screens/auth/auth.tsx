import { type FormEvent, useState } from 'react';
import { PASSWORD_MIN_LENGTH, type SessionInfo } from '../../../../common/contract/admin.ts';
import { setUpOwner, signIn as startSession } from '../../api/session.ts';
import { ErrorNote, errorText } from '../../components/ui.tsx';

type Props = { onSignedIn: (session: SessionInfo) => void };

function Field({ id, label, ...input }: { id: string; label: string } & React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={id} {...input} />
    </div>
  );
}

/** Posts credentials, hands the new session on, and keeps the error and busy state of the form. */
function useSignIn(onSignedIn: Props['onSignedIn']) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const signIn = async (send: typeof startSession, body: { username: string; password: string }) => {
    setBusy(true);
    try {
      onSignedIn(await send(body));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return { error, setError, busy, signIn };
}

/** First run: the person installing LocalIQ becomes its Owner. */
export function SetupScreen({ onSignedIn }: Props) {
  const { error, setError, busy, signIn } = useSignIn(onSignedIn);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get('password'));
    if (password !== String(form.get('confirm'))) return setError('The two passwords differ.');
    await signIn(setUpOwner, { username: String(form.get('username')), password });
  };
  return (
    <main className="auth">
      <form className="card auth-card" onSubmit={(e) => void submit(e)} aria-labelledby="setup-title">
        <p className="brand">LocalIQ</p>
        <h1 id="setup-title">Create the Owner account</h1>
        <p className="hint">
          Welcome. This account owns this LocalIQ: it creates API keys, invites colleagues and changes settings. Everything
          stays on this machine.
        </p>
        <Field id="username" label="Username" autoComplete="username" required autoFocus />
        <Field
          id="password"
          label={`Password (at least ${PASSWORD_MIN_LENGTH} characters)`}
          type="password"
          autoComplete="new-password"
          minLength={PASSWORD_MIN_LENGTH}
          required
        />
        <Field id="confirm" label="Repeat the password" type="password" autoComplete="new-password" required />
        <ErrorNote error={error} />
        <button className="primary" type="submit" disabled={busy}>
          Create Owner and sign in
        </button>
      </form>
    </main>
  );
}

export function SignInScreen({ onSignedIn, sessionEnded = false }: Props & { sessionEnded?: boolean }) {
  const { error, busy, signIn } = useSignIn(onSignedIn);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    await signIn(startSession, { username: String(form.get('username')), password: String(form.get('password')) });
  };
  return (
    <main className="auth">
      <form className="card auth-card" onSubmit={(e) => void submit(e)} aria-labelledby="signin-title">
        <p className="brand">LocalIQ</p>
        <h1 id="signin-title">Sign in</h1>
        {sessionEnded ? (
          <p className="hint" role="status">
            Your session ended: you signed out elsewhere, your password or role changed, or it went unused for 7 days. Sign in
            again.
          </p>
        ) : null}
        <Field id="username" label="Username" autoComplete="username" required autoFocus />
        <Field id="password" label="Password" type="password" autoComplete="current-password" required />
        <ErrorNote error={error} />
        <button className="primary" type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
