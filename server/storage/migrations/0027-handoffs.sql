  -- Handoffs (server/domain/handoffs.ts): a visitor's question left for the shop with contact
  -- details (personal data), kept in the visitor's session: deleting the conversation or retention
  -- removing it removes its handoffs too (ON DELETE CASCADE). reply_by: the dashboard user's name.
  CREATE TABLE handoffs (
    id                TEXT PRIMARY KEY,
    session_id        TEXT NOT NULL REFERENCES visitor_sessions (id) ON DELETE CASCADE,
    widget_id         TEXT NOT NULL,
    knowledge_base_id TEXT NOT NULL,
    question          TEXT NOT NULL,
    name              TEXT,
    email             TEXT,
    phone             TEXT,
    status            TEXT NOT NULL CHECK (status IN ('open', 'answered')),
    created_at        INTEGER NOT NULL,
    reply_text        TEXT,
    reply_at          INTEGER,
    reply_by          TEXT
  ) STRICT;
  CREATE INDEX handoffs_by_session ON handoffs (session_id, created_at);
  CREATE INDEX handoffs_by_status ON handoffs (status, created_at);
