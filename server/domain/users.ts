import { randomBytes } from 'node:crypto';
import { DuplicateError, Refusal, type RefusalKind } from './errors.ts';
import { decoyHash, hashPassword, PASSWORD_MIN_LENGTH, verifyPassword } from './passwords.ts';

const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export type UserRecord = {
  id: string;
  username: string;
  role: Role;
  createdAt: number;
  updatedAt: number;
  lastSignInAt: number | null;
};

/** The dashboard users as stored (storage/user-repo.ts). Password hashes leave it only for verification. */
export type UserStore = {
  hasOwner(): boolean;
  /**
   * Adds a user; with `onlyIfNoOwner`, checks and inserts at once, so two first-run requests
   * cannot both create an Owner (false: an Owner exists). Throws a DuplicateError when the
   * username, or the one Owner, exists.
   */
  insert(user: { id: string; username: string; role: Role; passwordHash: string }, now: number, onlyIfNoOwner?: boolean): boolean;
  find(id: string): UserRecord | null;
  findWithHash(username: string): { user: UserRecord; passwordHash: string } | null;
  /** The Owner first, then Admins, then Members, each by username. */
  list(): UserRecord[];
  setRole(id: string, role: Role, now: number): boolean;
  setPassword(id: string, passwordHash: string, now: number): boolean;
  recordSignIn(id: string, now: number): void;
  /** Removing a user ends their sessions too. */
  remove(id: string): boolean;
};

/** Owner and Admin manage keys, users, items and settings; a Member looks and asks. */
export function canManage(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

type UserErrorReason = 'exists' | 'weak_password' | 'not_found' | 'forbidden' | 'owner_exists';
const USER_ERROR_KINDS: Record<UserErrorReason, RefusalKind> = {
  exists: 'conflict',
  owner_exists: 'conflict',
  weak_password: 'invalid_input',
  not_found: 'not_found',
  forbidden: 'forbidden',
};

/** A change of users refused; a weak password names the `password` field. */
export class UserError extends Refusal {
  constructor(
    readonly reason: UserErrorReason,
    message: string,
  ) {
    super(USER_ERROR_KINDS[reason], message, reason === 'weak_password' ? 'password' : undefined);
  }
}

/** The rules on dashboard users: one Owner, hashed passwords, who may change whom. */
export class UserService {
  constructor(
    private readonly repo: UserStore,
    private readonly clock: () => number = Date.now,
  ) {}

  needsOwner(): boolean {
    return !this.repo.hasOwner();
  }

  /** First run only: creates the Owner, or refuses once one exists. */
  async createOwner(username: string, password: string): Promise<UserRecord> {
    return this.insert(username, password, 'owner', true);
  }

  async create(actor: UserRecord, username: string, password: string, role: Exclude<Role, 'owner'>): Promise<UserRecord> {
    if (!canManage(actor.role)) throw new UserError('forbidden', 'Only the Owner and Admins manage users.');
    if (role === 'admin' && actor.role !== 'owner') throw new UserError('forbidden', 'Only the Owner creates Admins.');
    return this.insert(username, password, role, false);
  }

  list(): UserRecord[] {
    return this.repo.list();
  }

  find(id: string): UserRecord | null {
    return this.repo.find(id);
  }

  owner(): UserRecord | null {
    return this.repo.list().find((u) => u.role === 'owner') ?? null;
  }

  /** Checks a password; an unknown name costs the same scrypt work as a wrong password. */
  async verify(username: string, password: string): Promise<UserRecord | null> {
    const found = this.repo.findWithHash(username.trim());
    const ok = await verifyPassword(password, found?.passwordHash ?? (await decoyHash()));
    return found && ok ? found.user : null;
  }

  recordSignIn(id: string): void {
    this.repo.recordSignIn(id, this.clock());
  }

  setRole(actor: UserRecord, id: string, role: Exclude<Role, 'owner'>): UserRecord {
    const target = this.editable(actor, id);
    if (role === 'admin' && actor.role !== 'owner') throw new UserError('forbidden', 'Only the Owner makes Admins.');
    this.repo.setRole(id, role, this.clock());
    return { ...target, role };
  }

  remove(actor: UserRecord, id: string): void {
    this.editable(actor, id);
    this.repo.remove(id);
  }

  /** Changes a user's own password after checking the current one. */
  async changePassword(user: UserRecord, current: string, next: string): Promise<boolean> {
    const found = this.repo.findWithHash(user.username);
    if (!found || !(await verifyPassword(current, found.passwordHash))) return false;
    checkPassword(next);
    this.repo.setPassword(user.id, await hashPassword(next), this.clock());
    return true;
  }

  /**
   * Sets a password without the old one: for `localiq users reset-password`, run by whoever has
   * the data folder (and so the machine) in hand, e.g. after the Owner forgot theirs.
   */
  async resetPassword(username: string, password: string): Promise<UserRecord> {
    const found = this.repo.findWithHash(username.trim());
    if (!found) throw new UserError('not_found', `No user "${username}".`);
    checkPassword(password);
    this.repo.setPassword(found.user.id, await hashPassword(password), this.clock());
    return found.user;
  }

  /** Nobody changes the Owner or themselves here; an Admin changes only Members. */
  private editable(actor: UserRecord, id: string): UserRecord {
    if (!canManage(actor.role)) throw new UserError('forbidden', 'Only the Owner and Admins manage users.');
    const target = this.repo.find(id);
    if (!target) throw new UserError('not_found', 'No such user.');
    if (target.role === 'owner') throw new UserError('forbidden', 'The Owner cannot be changed or removed.');
    if (target.id === actor.id) throw new UserError('forbidden', 'You cannot change your own role or remove yourself.');
    if (actor.role === 'admin' && target.role !== 'member') throw new UserError('forbidden', 'Admins manage Members only.');
    return target;
  }

  private async insert(username: string, password: string, role: Role, firstRun: boolean): Promise<UserRecord> {
    const name = username.trim();
    checkPassword(password);
    if (this.repo.findWithHash(name)) throw new UserError('exists', `The username "${name}" is taken.`);
    const id = `usr_${randomBytes(9).toString('base64url')}`;
    const passwordHash = await hashPassword(password);
    const now = this.clock();
    try {
      if (!this.repo.insert({ id, username: name, role, passwordHash }, now, firstRun)) {
        throw new UserError('owner_exists', 'The Owner already exists; sign in instead.');
      }
    } catch (error) {
      if (error instanceof DuplicateError) {
        throw new UserError(role === 'owner' ? 'owner_exists' : 'exists', `The username "${name}" is taken.`);
      }
      throw error;
    }
    return this.repo.find(id)!;
  }
}

function checkPassword(password: string): void {
  if ([...password].length < PASSWORD_MIN_LENGTH) {
    throw new UserError('weak_password', `A password needs at least ${PASSWORD_MIN_LENGTH} characters.`);
  }
}
