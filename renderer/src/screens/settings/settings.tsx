import { type FormEvent, useState } from 'react';
import { type AdminUser, PASSWORD_MIN_LENGTH, ROLE_LABELS } from '../../../../common/contract/admin.ts';
import { changePassword } from '../../api/session.ts';
import { getSettings } from '../../api/settings.ts';
import { addUser, listUsers, removeUser, setUserRole } from '../../api/users.ts';
import { ConfirmDelete } from '../../components/confirm-delete.tsx';
import { ErrorNote, errorText, PageHeader, useLoad, DataTable } from '../../components/ui.tsx';
import { formatDate } from '../../format.ts';
import { useSession } from '../../session.tsx';
import { BackupPanel } from './backup-settings.tsx';
import { LlmSettingsPanel } from './llm-settings.tsx';
import { WebhooksPanel } from './webhook-settings.tsx';

function ServerPanel() {
  const { data, error } = useLoad((signal) => getSettings(signal), []);
  return (
    <section className="panel" aria-labelledby="server-heading">
      <h2 id="server-heading">Server</h2>
      <ErrorNote error={error} />
      {data ? (
        <>
          <dl className="meta">
            <div>
              <dt>Data folder</dt>
              <dd>
                <code data-testid="data-dir">{data.dataDir}</code>
              </dd>
            </div>
            <div>
              <dt>Address</dt>
              <dd>
                <code>
                  {data.host}:{data.port}
                </code>
              </dd>
            </div>
            <div>
              <dt>LAN access</dt>
              <dd>{data.lanAccess ? 'On: reachable from your network' : 'Off: this machine only'}</dd>
            </div>
            <div>
              <dt>Embedding model</dt>
              <dd>{data.embedder ?? 'not loaded'}</dd>
            </div>
            <div>
              <dt>Pipeline workers</dt>
              <dd>{data.workers}</dd>
            </div>
            <div>
              <dt>Server secret</dt>
              <dd>{data.secretStore === 'keychain' ? 'OS keychain' : 'file in the data folder'}</dd>
            </div>
          </dl>
          <p className="hint">{data.lanAccessHelp} The data folder, address and port are set when LocalIQ starts.</p>
        </>
      ) : null}
    </section>
  );
}

function UsersPanel() {
  const { session } = useSession();
  const users = useLoad((signal) => listUsers(signal), []);
  const [error, setError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<AdminUser | null>(null);
  const me = session.user;
  const editable = (u: AdminUser) =>
    session.canManage && u.role !== 'owner' && u.id !== me.id && (me.role === 'owner' || u.role === 'member');

  const add = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formEl = event.currentTarget;
    const form = new FormData(formEl);
    try {
      await addUser({ username: String(form.get('username')), password: String(form.get('password')), role: String(form.get('role')) as 'admin' | 'member' });
      formEl.reset();
      setError(null);
      users.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <section className="panel" aria-labelledby="users-heading">
      <h2 id="users-heading">Users</h2>
      <p className="hint">Owner and Admins manage keys, users and settings. Members see everything and use the chat, but change nothing.</p>
      <ErrorNote error={users.error ?? error} />
      <DataTable caption="Users" columns={['Username', 'Role', 'Last sign-in', session.canManage && 'Actions']}>
        {(users.data?.data ?? []).map((u) => (
          <tr key={u.id}>
            <td>
              {u.username}
              {u.id === me.id ? <span className="hint"> (you)</span> : null}
            </td>
            <td>
              {editable(u) && me.role === 'owner' ? (
                <select
                  aria-label={`Role of ${u.username}`}
                  value={u.role}
                  onChange={async (e) => {
                    try {
                      await setUserRole(u.id, { role: e.target.value as 'admin' | 'member' });
                      users.reload();
                    } catch (err) {
                      setError(errorText(err));
                    }
                  }}
                >
                  <option value="admin">Admin</option>
                  <option value="member">Member</option>
                </select>
              ) : (
                ROLE_LABELS[u.role]
              )}
            </td>
            <td className="date">{formatDate(u.lastSignInAt)}</td>
            {session.canManage ? (
              <td>
                {editable(u) ? (
                  <button type="button" className="danger" onClick={() => setRemoving(u)} aria-label={`Remove ${u.username}`}>
                    Remove
                  </button>
                ) : null}
              </td>
            ) : null}
          </tr>
        ))}
      </DataTable>
      {session.canManage ? (
        <form className="inline-form" onSubmit={(e) => void add(e)} aria-labelledby="add-user-heading">
          <h3 id="add-user-heading">Add a user</h3>
          <div className="field">
            <label htmlFor="new-username">Username</label>
            <input id="new-username" name="username" required autoComplete="off" />
          </div>
          <div className="field">
            <label htmlFor="new-password">Initial password</label>
            <input id="new-password" name="password" type="password" minLength={PASSWORD_MIN_LENGTH} required autoComplete="new-password" />
          </div>
          <div className="field">
            <label htmlFor="new-role">Role</label>
            <select id="new-role" name="role" defaultValue="member">
              <option value="member">Member</option>
              {me.role === 'owner' ? <option value="admin">Admin</option> : null}
            </select>
          </div>
          <button type="submit" className="primary">
            Add user
          </button>
        </form>
      ) : null}
      <ConfirmDelete
        target={removing}
        title="Remove this user?"
        confirmLabel="Remove user"
        message={(user) => <p>{user.username} is signed out and can no longer sign in.</p>}
        remove={async (user) => {
          await removeUser(user.id);
          users.reload();
        }}
        onClose={() => setRemoving(null)}
      />
    </section>
  );
}

function PasswordPanel() {
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formEl = event.currentTarget;
    const form = new FormData(formEl);
    try {
      await changePassword({ currentPassword: String(form.get('current')), newPassword: String(form.get('next')) });
      formEl.reset();
      setError(null);
      setMessage('Password changed. Your other sessions were signed out.');
    } catch (e) {
      setMessage(null);
      setError(errorText(e));
    }
  };
  return (
    <section className="panel" aria-labelledby="password-heading">
      <h2 id="password-heading">Your password</h2>
      <form className="inline-form" onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label htmlFor="current-password">Current password</label>
          <input id="current-password" name="current" type="password" required autoComplete="current-password" />
        </div>
        <div className="field">
          <label htmlFor="next-password">New password</label>
          <input id="next-password" name="next" type="password" minLength={PASSWORD_MIN_LENGTH} required autoComplete="new-password" />
        </div>
        <button type="submit" className="secondary">
          Change password
        </button>
      </form>
      <ErrorNote error={error} />
      {message ? <p role="status">{message}</p> : null}
    </section>
  );
}

export function SettingsScreen() {
  const { session } = useSession();
  return (
    <>
      <PageHeader title="Settings" />
      <ServerPanel />
      <LlmSettingsPanel />
      <UsersPanel />
      <PasswordPanel />
      {session.user.role === 'owner' ? <BackupPanel /> : null}
      {session.canManage ? <WebhooksPanel /> : null}
    </>
  );
}
