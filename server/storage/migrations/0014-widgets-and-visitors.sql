  -- The visitor assistant (common/contract/widget.ts). A widget's settings are one JSON document
  -- (server/domain/widgets.ts owns its shape); a deleted widget keeps its row, so the
  -- conversations that name it stay readable until retention removes them.
  CREATE TABLE widgets (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    settings   TEXT NOT NULL,
    enabled    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    deleted_at INTEGER
  ) STRICT;
  -- A visitor's session (a conversation). ip_hash is an HMAC of the address under a key derived
  -- from the server secret; the clear address is never stored.
  CREATE TABLE visitor_sessions (
    id           TEXT PRIMARY KEY,
    widget_id    TEXT NOT NULL REFERENCES widgets (id),
    origin       TEXT NOT NULL,
    ip_hash      TEXT NOT NULL,
    started_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
  ) STRICT;
  -- The owner's list (per widget, newest first) and retention (oldest last use first).
  CREATE INDEX visitor_sessions_by_widget ON visitor_sessions (widget_id, started_at);
  CREATE INDEX visitor_sessions_by_start ON visitor_sessions (started_at);
  CREATE INDEX visitor_sessions_by_last_seen ON visitor_sessions (last_seen_at);
  CREATE TABLE visitor_turns (
    id                TEXT PRIMARY KEY,
    session_id        TEXT NOT NULL REFERENCES visitor_sessions (id) ON DELETE CASCADE,
    widget_id         TEXT NOT NULL,
    knowledge_base_id TEXT NOT NULL,
    question          TEXT NOT NULL,
    answer            TEXT NOT NULL,
    answered          INTEGER NOT NULL,
    citations         TEXT NOT NULL,
    latency_ms        REAL NOT NULL,
    feedback          TEXT CHECK (feedback IN ('up', 'down')),
    asked_at          INTEGER NOT NULL
  ) STRICT;
  -- A conversation's turns in order; a widget's questions by time (content gaps); retention.
  CREATE INDEX visitor_turns_by_session ON visitor_turns (session_id, asked_at);
  CREATE INDEX visitor_turns_by_widget ON visitor_turns (widget_id, asked_at);
  CREATE INDEX visitor_turns_by_time ON visitor_turns (asked_at);
  -- Visitors' questions, answers and feedback counted per hour, widget and answering knowledge
  -- base, for GET /usage and the daily cap: counts outlive the conversations retention removes.
  CREATE TABLE visitor_usage (
    hour              INTEGER NOT NULL,
    widget_id         TEXT NOT NULL,
    knowledge_base_id TEXT NOT NULL,
    metric            TEXT NOT NULL,
    value             INTEGER NOT NULL,
    PRIMARY KEY (widget_id, hour, knowledge_base_id, metric)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX visitor_usage_by_hour ON visitor_usage (hour);
