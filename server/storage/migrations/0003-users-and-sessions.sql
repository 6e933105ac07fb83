  -- Dashboard users. The password is stored only as a scrypt hash (salt and cost inside it).
  CREATE TABLE users (
    id                TEXT PRIMARY KEY,
    username          TEXT NOT NULL UNIQUE COLLATE NOCASE,
    role              TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    password_hash     TEXT NOT NULL,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    last_sign_in_at   INTEGER
  ) STRICT;
  -- At most one Owner.
  CREATE UNIQUE INDEX users_one_owner ON users (role) WHERE role = 'owner';

  -- Dashboard sessions, keyed by SHA-256 of the cookie value: a copied database signs nobody in.
  CREATE TABLE sessions (
    token_hash   BLOB PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX sessions_by_user ON sessions (user_id);
