  -- Dashboard conversations: what staff asked in the dashboard's chat (docs/dashboard.md,
  -- "Conversations"). A conversation belongs to the signed-in user who asked (their id and their
  -- name as it was then; never a password or a session); its turns have the visitor turns' shape.
  -- Tables of their own, not rows in visitor_sessions/visitor_turns: a visitor session names a
  -- widget (NOT NULL, a foreign key), and everything the content gaps and the visitor analytics read
  -- (visitor_turns, its gap indexes, the hourly counts) stays about the website's visitors only.
  CREATE TABLE dashboard_conversations (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL,
    user_name    TEXT NOT NULL,
    started_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
  ) STRICT;
  -- The owner's list (newest first, id breaking ties) and retention (oldest last use first).
  CREATE INDEX dashboard_conversations_by_start ON dashboard_conversations (started_at, id);
  CREATE INDEX dashboard_conversations_by_last_seen ON dashboard_conversations (last_seen_at);
  CREATE TABLE dashboard_turns (
    id                TEXT PRIMARY KEY,
    conversation_id   TEXT NOT NULL REFERENCES dashboard_conversations (id) ON DELETE CASCADE,
    knowledge_base_id TEXT NOT NULL,
    question          TEXT NOT NULL,
    answer            TEXT NOT NULL,
    answered          INTEGER NOT NULL,
    citations         TEXT NOT NULL,
    latency_ms        REAL NOT NULL,
    feedback          TEXT CHECK (feedback IN ('up', 'down')),
    asked_at          INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX dashboard_turns_by_conversation ON dashboard_turns (conversation_id, asked_at);
  CREATE INDEX dashboard_turns_by_time ON dashboard_turns (asked_at);
