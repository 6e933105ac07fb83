  CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) STRICT;

  CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  ) STRICT;
  INSERT INTO counters (name, value) VALUES ('item_seq', 0);

  CREATE TABLE knowledge_bases (
    id         TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE api_keys (
    id                 TEXT PRIMARY KEY,
    name               TEXT NOT NULL,
    description        TEXT NOT NULL DEFAULT '',
    secret_hash        BLOB NOT NULL,
    scopes             TEXT NOT NULL,
    knowledge_base_ids TEXT,
    created_by         TEXT,
    created_at         INTEGER NOT NULL,
    expires_at         INTEGER,
    last_used_at       INTEGER,
    revoked_at         INTEGER,
    rotated_from       TEXT
  ) STRICT;

  -- One row per processing job. An item (knowledge base + integration + external id) may have
  -- many jobs over time but at most one queued job: a re-push while queued replaces its payload.
  -- seq orders every accepted version of any item, so an older run never overwrites newer content.
  CREATE TABLE jobs (
    id                INTEGER PRIMARY KEY,
    job_id            TEXT NOT NULL,
    knowledge_base_id TEXT NOT NULL,
    integration_id    TEXT NOT NULL,
    external_id       TEXT NOT NULL,
    source_type       TEXT NOT NULL,
    data              TEXT NOT NULL,
    content_hash      TEXT NOT NULL,
    force_refresh     INTEGER NOT NULL,
    priority          INTEGER NOT NULL,
    seq               INTEGER NOT NULL,
    enqueued_at       INTEGER NOT NULL,
    sort_key          INTEGER NOT NULL,
    status            TEXT NOT NULL,
    attempts          INTEGER NOT NULL DEFAULT 0,
    max_attempts      INTEGER NOT NULL,
    run_at            INTEGER NOT NULL,
    locked_at         INTEGER,
    last_error        TEXT,
    errors            TEXT NOT NULL DEFAULT '[]',
    api_key_id        TEXT,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    started_at        INTEGER,
    finished_at       INTEGER
  ) STRICT;
  CREATE UNIQUE INDEX jobs_one_queued_per_item
    ON jobs (knowledge_base_id, integration_id, external_id) WHERE status = 'queued';
  CREATE INDEX jobs_claim_order ON jobs (sort_key) WHERE status = 'queued';
  CREATE INDEX jobs_by_job_id ON jobs (job_id, id);
  CREATE INDEX jobs_by_item ON jobs (knowledge_base_id, integration_id, external_id, id);
  CREATE INDEX jobs_by_status ON jobs (status, id);

  -- A deleted item remembers the seq of its deletion, so a job of an older version that was
  -- already running cannot bring it back; a newer push (higher seq) indexes it again.
  CREATE TABLE item_tombstones (
    knowledge_base_id TEXT NOT NULL,
    integration_id    TEXT NOT NULL,
    external_id       TEXT NOT NULL,
    seq               INTEGER NOT NULL,
    deleted_at        INTEGER NOT NULL,
    PRIMARY KEY (knowledge_base_id, integration_id, external_id)
  ) STRICT, WITHOUT ROWID;
