/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many have run.
 * Never edit a migration that has shipped: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
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
  `,
  `
  -- The indexed state of each item: what search and the assistant read. Written only by the
  -- pipeline, in one transaction per item together with its chunks, so no half-indexed item is
  -- ever visible. seq is the version it holds (see jobs.seq).
  CREATE TABLE items (
    id                INTEGER PRIMARY KEY,
    knowledge_base_id TEXT NOT NULL,
    integration_id    TEXT NOT NULL,
    external_id       TEXT NOT NULL,
    source_type       TEXT NOT NULL,
    title             TEXT NOT NULL,
    content           TEXT NOT NULL,
    text              TEXT NOT NULL,
    url               TEXT,
    source_data       TEXT,
    content_hash      TEXT NOT NULL,
    seq               INTEGER NOT NULL,
    chunk_count       INTEGER NOT NULL,
    embedder_id       TEXT NOT NULL,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    UNIQUE (knowledge_base_id, integration_id, external_id)
  ) STRICT;
  CREATE INDEX items_by_kb ON items (knowledge_base_id, source_type, id);

  CREATE TABLE chunks (
    id          INTEGER PRIMARY KEY,
    item_id     INTEGER NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    text        TEXT NOT NULL,
    token_count INTEGER NOT NULL,
    -- hash of what was embedded (title + passage): the key of the embedding cache
    embed_hash  TEXT NOT NULL
  ) STRICT;
  CREATE INDEX chunks_by_item ON chunks (item_id, position);
  CREATE INDEX chunks_by_embed_hash ON chunks (embed_hash);

  -- Keyword indexes. Contentless (the text is in items/chunks) with delete support.
  CREATE VIRTUAL TABLE items_fts USING fts5 (
    title, text, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    title, text, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
  );
  `,
  `
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
  `,
  `
  -- Usage, counted as it happens, per hour (start of the UTC hour in ms), API key ('' when none)
  -- and knowledge base ('' when none). route is 'METHOD /pattern' for requests, '' otherwise.
  CREATE TABLE usage_counts (
    hour              INTEGER NOT NULL,
    key_id            TEXT NOT NULL,
    knowledge_base_id TEXT NOT NULL,
    route             TEXT NOT NULL,
    metric            TEXT NOT NULL,
    value             INTEGER NOT NULL,
    PRIMARY KEY (hour, metric, key_id, knowledge_base_id, route)
  ) STRICT, WITHOUT ROWID;

  -- One row per answered question, for latency percentiles.
  CREATE TABLE usage_answer_latency (
    id                INTEGER PRIMARY KEY,
    at                INTEGER NOT NULL,
    key_id            TEXT NOT NULL,
    knowledge_base_id TEXT NOT NULL,
    ms                REAL NOT NULL
  ) STRICT;
  CREATE INDEX usage_answer_latency_by_time ON usage_answer_latency (at);

  -- Job outcomes are counted where they happen (the pipeline workers' own connections), in the
  -- same transaction as the state change, so a count never disagrees with the job table.
  CREATE TRIGGER usage_job_outcome AFTER UPDATE OF status ON jobs
    WHEN NEW.status IN ('succeeded', 'skipped', 'failed', 'cancelled') AND OLD.status <> NEW.status
  BEGIN
    INSERT INTO usage_counts (hour, key_id, knowledge_base_id, route, metric, value)
    VALUES ((NEW.updated_at / 3600000) * 3600000, coalesce(NEW.api_key_id, ''), NEW.knowledge_base_id, '',
      'jobs_' || NEW.status, 1)
    ON CONFLICT (hour, metric, key_id, knowledge_base_id, route) DO UPDATE SET value = value + 1;
  END;

  -- An unchanged item's push is recorded as skipped when it is accepted, without a state change.
  CREATE TRIGGER usage_job_settled_on_insert AFTER INSERT ON jobs
    WHEN NEW.status IN ('succeeded', 'skipped', 'failed', 'cancelled')
  BEGIN
    INSERT INTO usage_counts (hour, key_id, knowledge_base_id, route, metric, value)
    VALUES ((NEW.updated_at / 3600000) * 3600000, coalesce(NEW.api_key_id, ''), NEW.knowledge_base_id, '',
      'jobs_' || NEW.status, 1)
    ON CONFLICT (hour, metric, key_id, knowledge_base_id, route) DO UPDATE SET value = value + 1;
  END;

  -- A chunk is counted as embedded when no other chunk indexed with the same model has its text
  -- (the embedding cache had no vector for it), attributed to the key whose push it came from.
  CREATE TRIGGER usage_chunk_embedded AFTER INSERT ON chunks
    WHEN NOT EXISTS (
      SELECT 1 FROM chunks c JOIN items i ON i.id = c.item_id
      WHERE c.embed_hash = NEW.embed_hash AND c.id <> NEW.id
        AND i.embedder_id = (SELECT embedder_id FROM items WHERE id = NEW.item_id))
  BEGIN
    INSERT INTO usage_counts (hour, key_id, knowledge_base_id, route, metric, value)
    SELECT (n.updated_at / 3600000) * 3600000,
      coalesce((SELECT j.api_key_id FROM jobs j WHERE j.knowledge_base_id = n.knowledge_base_id
        AND j.integration_id = n.integration_id AND j.external_id = n.external_id AND j.seq = n.seq
        ORDER BY j.id DESC LIMIT 1), ''),
      n.knowledge_base_id, '', 'chunks_embedded', 1
    FROM items n WHERE n.id = NEW.item_id
    ON CONFLICT (hour, metric, key_id, knowledge_base_id, route) DO UPDATE SET value = value + 1;
  END;
  `,
  `
  -- API keys are cached in memory by the server; any change to a key, by any process (the CLI
  -- revokes from its own), bumps this version in the same transaction, and the server reads it
  -- after receiving requests and before authenticating them. The last-used time is not part of
  -- it: touching a key changes nothing it grants.
  INSERT INTO counters (name, value) VALUES ('api_keys_version', 0) ON CONFLICT (name) DO NOTHING;
  CREATE TRIGGER api_keys_version_on_insert AFTER INSERT ON api_keys
  BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'api_keys_version';
  END;
  CREATE TRIGGER api_keys_version_on_update
    AFTER UPDATE OF id, name, description, secret_hash, scopes, knowledge_base_ids, created_by, created_at,
      expires_at, revoked_at, rotated_from ON api_keys
  BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'api_keys_version';
  END;
  CREATE TRIGGER api_keys_version_on_delete AFTER DELETE ON api_keys
  BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'api_keys_version';
  END;

  -- A trigger on every job insert cost a sixth of the insert (SQLite builds the new row for it)
  -- although only pushes of unchanged content insert a settled job; the job repo counts those
  -- itself, in the same transaction (job-repo.ts, insertSkipped).
  DROP TRIGGER usage_job_settled_on_insert;
  `,
  `
  -- Keyword indexes with a scope column (knowledge base, source type and, for chunks, item tokens;
  -- keyword-scope.ts): searches filter inside FTS5 instead of joining every match to items.
  DROP TABLE items_fts;
  DROP TABLE chunks_fts;
  CREATE VIRTUAL TABLE items_fts USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
  );
  INSERT INTO items_fts (rowid, title, text, scope)
    SELECT id, title, text, localiq_scope(knowledge_base_id, source_type, NULL) FROM items;
  INSERT INTO chunks_fts (rowid, title, text, scope)
    SELECT c.id, i.title, c.text, localiq_scope(i.knowledge_base_id, i.source_type, c.item_id)
    FROM chunks c JOIN items i ON i.id = c.item_id;

  -- Every chunk written or removed, in order: what the in-memory vector index of the search
  -- process replays to stay current with the pipeline's writes (retrieval/vector-index.ts).
  -- Bounded: a reader further behind than the retained window reloads from the vector table.
  CREATE TABLE chunk_changes (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id INTEGER NOT NULL,
    removed  INTEGER NOT NULL
  ) STRICT;
  CREATE TRIGGER chunk_changes_insert AFTER INSERT ON chunks
  BEGIN
    INSERT INTO chunk_changes (chunk_id, removed) VALUES (NEW.id, 0);
  END;
  CREATE TRIGGER chunk_changes_delete AFTER DELETE ON chunks
  BEGIN
    INSERT INTO chunk_changes (chunk_id, removed) VALUES (OLD.id, 1);
  END;
  CREATE TRIGGER chunk_changes_bounded AFTER INSERT ON chunk_changes WHEN NEW.seq % 1000 = 0
  BEGIN
    DELETE FROM chunk_changes WHERE seq <= NEW.seq - 200000;
  END;
  `,
  `
  -- Every item written or removed, in order: what the in-memory keyword index replays to stay
  -- current (retrieval/keyword-index.ts), as the vector index replays chunk_changes. Only the
  -- columns items_fts is built from count as a change. Bounded like chunk_changes.
  CREATE TABLE item_changes (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    item_id INTEGER NOT NULL
  ) STRICT;
  CREATE TRIGGER item_changes_insert AFTER INSERT ON items
  BEGIN
    INSERT INTO item_changes (item_id) VALUES (NEW.id);
  END;
  CREATE TRIGGER item_changes_update AFTER UPDATE OF title, text, source_type, knowledge_base_id ON items
  BEGIN
    INSERT INTO item_changes (item_id) VALUES (NEW.id);
  END;
  CREATE TRIGGER item_changes_delete AFTER DELETE ON items
  BEGIN
    INSERT INTO item_changes (item_id) VALUES (OLD.id);
  END;
  CREATE TRIGGER item_changes_bounded AFTER INSERT ON item_changes WHEN NEW.seq % 1000 = 0
  BEGIN
    DELETE FROM item_changes WHERE seq <= NEW.seq - 200000;
  END;
  `,
  `
  -- A job's seed jobId is integration_id || '-' || external_id, so jobs_by_job_id held the same
  -- strings as jobs_by_item a second time, and every pushed job paid for both (with scattered
  -- external ids, a leaf page each per job in every commit). One index, led by integration and
  -- external id, now serves a jobId (looked up as each way it splits at a hyphen) and an item.
  -- Listing a knowledge base's jobs newest first gets a short index of its own, whose new entries
  -- land together at the end of each knowledge base's range.
  DROP INDEX jobs_by_job_id;
  DROP INDEX jobs_by_item;
  CREATE INDEX jobs_by_item ON jobs (integration_id, external_id, knowledge_base_id, id);
  CREATE INDEX jobs_by_knowledge_base ON jobs (knowledge_base_id, id);
  `,
  `
  -- The dashboard's live monitor and the knowledge-base list counted jobs by reading the job
  -- table (about 0.7 s per snapshot at 300,000 jobs). Counts per knowledge base, state and
  -- priority are now kept as jobs change, in the transaction that changes them: by triggers when
  -- a job changes or goes, and by the job repository for the jobs it inserts (a trigger on every
  -- insert made bulk pushes about a quarter slower; job-repo.ts, countInserted).
  CREATE TABLE job_counts (
    knowledge_base_id TEXT NOT NULL,
    status            TEXT NOT NULL,
    priority          INTEGER NOT NULL,
    n                 INTEGER NOT NULL,
    PRIMARY KEY (knowledge_base_id, status, priority)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO job_counts (knowledge_base_id, status, priority, n)
    SELECT knowledge_base_id, status, priority, count(*) FROM jobs GROUP BY knowledge_base_id, status, priority;
  CREATE TRIGGER job_counts_on_update AFTER UPDATE OF knowledge_base_id, status, priority ON jobs
  WHEN OLD.knowledge_base_id IS NOT NEW.knowledge_base_id OR OLD.status IS NOT NEW.status
    OR OLD.priority IS NOT NEW.priority
  BEGIN
    UPDATE job_counts SET n = n - 1
      WHERE knowledge_base_id = OLD.knowledge_base_id AND status = OLD.status AND priority = OLD.priority;
    INSERT INTO job_counts VALUES (NEW.knowledge_base_id, NEW.status, NEW.priority, 1)
      ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER job_counts_on_delete AFTER DELETE ON jobs
  BEGIN
    UPDATE job_counts SET n = n - 1
      WHERE knowledge_base_id = OLD.knowledge_base_id AND status = OLD.status AND priority = OLD.priority;
  END;

  -- With the counts kept, the status index no longer takes the queued jobs every push inserts
  -- (the queue has jobs_claim_order). Partial: a query uses it only when its WHERE clause repeats
  -- "status <> 'queued'" word for word.
  DROP INDEX jobs_by_status;
  CREATE INDEX jobs_by_status_not_queued ON jobs (status, id) WHERE status <> 'queued';
  -- The priority in the claim order lets the monitor find each priority's oldest waiting job
  -- from the index alone.
  DROP INDEX jobs_claim_order;
  CREATE INDEX jobs_claim_order ON jobs (sort_key, priority) WHERE status = 'queued';
  -- Finished jobs in the order they finished: the monitor's progress and recent activity.
  CREATE INDEX jobs_by_finish ON jobs (finished_at) WHERE finished_at IS NOT NULL;
  `,
  `
  -- Items and chunks per knowledge base, kept as items change: the knowledge-base lists and the
  -- assistant (its word weights need the chunk total) summed chunk_count over every item row,
  -- about 0.65 s with 300,000 items. Items are written one at a time by the pipeline, after
  -- their chunks are embedded (tens of milliseconds each), so the triggers' cost does not show.
  CREATE TABLE item_counts (
    knowledge_base_id TEXT PRIMARY KEY,
    items             INTEGER NOT NULL,
    chunks            INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  INSERT INTO item_counts (knowledge_base_id, items, chunks)
    SELECT knowledge_base_id, count(*), sum(chunk_count) FROM items GROUP BY knowledge_base_id;
  CREATE TRIGGER item_counts_on_insert AFTER INSERT ON items
  BEGIN
    INSERT INTO item_counts VALUES (NEW.knowledge_base_id, 1, NEW.chunk_count)
      ON CONFLICT DO UPDATE SET items = items + 1, chunks = chunks + excluded.chunks;
  END;
  CREATE TRIGGER item_counts_on_update AFTER UPDATE OF knowledge_base_id, chunk_count ON items
  WHEN OLD.knowledge_base_id IS NOT NEW.knowledge_base_id OR OLD.chunk_count IS NOT NEW.chunk_count
  BEGIN
    UPDATE item_counts SET items = items - 1, chunks = chunks - OLD.chunk_count
      WHERE knowledge_base_id = OLD.knowledge_base_id;
    INSERT INTO item_counts VALUES (NEW.knowledge_base_id, 1, NEW.chunk_count)
      ON CONFLICT DO UPDATE SET items = items + 1, chunks = chunks + excluded.chunks;
  END;
  CREATE TRIGGER item_counts_on_delete AFTER DELETE ON items
  BEGIN
    UPDATE item_counts SET items = items - 1, chunks = chunks - OLD.chunk_count
      WHERE knowledge_base_id = OLD.knowledge_base_id;
  END;
  `,
  `
  -- A job inserted and then changed in one transaction (the same item twice in a bulk, or pushes
  -- sharing a commit, at another priority the second time) was taken off a count row that did not
  -- exist yet, since the job repository adds its inserts when the transaction ends: the old
  -- priority kept one job too many for good. Taking off now creates the row at -1 when needed, so
  -- the order of the two no longer matters, and counts that drifted are counted again.
  DROP TRIGGER job_counts_on_update;
  DROP TRIGGER job_counts_on_delete;
  CREATE TRIGGER job_counts_on_update AFTER UPDATE OF knowledge_base_id, status, priority ON jobs
  WHEN OLD.knowledge_base_id IS NOT NEW.knowledge_base_id OR OLD.status IS NOT NEW.status
    OR OLD.priority IS NOT NEW.priority
  BEGIN
    INSERT INTO job_counts VALUES (OLD.knowledge_base_id, OLD.status, OLD.priority, -1)
      ON CONFLICT DO UPDATE SET n = n - 1;
    INSERT INTO job_counts VALUES (NEW.knowledge_base_id, NEW.status, NEW.priority, 1)
      ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER job_counts_on_delete AFTER DELETE ON jobs
  BEGIN
    INSERT INTO job_counts VALUES (OLD.knowledge_base_id, OLD.status, OLD.priority, -1)
      ON CONFLICT DO UPDATE SET n = n - 1;
  END;
  DELETE FROM job_counts;
  INSERT INTO job_counts (knowledge_base_id, status, priority, n)
    SELECT knowledge_base_id, status, priority, count(*) FROM jobs GROUP BY knowledge_base_id, status, priority;
  `,
  `
  -- The CLI took expiries such as "1000000y", beyond the largest time a date can hold
  -- (8.64e15 ms): listing keys then failed for good. Such a key never expires in any sense.
  UPDATE api_keys SET expires_at = NULL WHERE expires_at > 8640000000000000;
  `,
  `
  -- A deleted item remembers who deleted it (the API key, or the dashboard user), so the dashboard
  -- can say when and by whom instead of showing the item as not indexed yet.
  ALTER TABLE item_tombstones ADD COLUMN deleted_by_key_id TEXT;
  ALTER TABLE item_tombstones ADD COLUMN deleted_by_user_id TEXT;
  `,
  `
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
  `,
  `
  -- The knowledge base's language (docs/retrieval.md, "Languages"). English keeps items_fts and
  -- chunks_fts (FTS5's Porter stemmer). Every other language has its own pair of keyword tables,
  -- holding the terms of server/domain/keyword-language.ts (folded, stop words out, Snowball stems)
  -- joined by spaces, under a tokenizer that only splits them: BM25's statistics stay within a
  -- language, and a knowledge base moving from one language to another is written into the new
  -- pair while the old one answers.
  ${languageTables(['de', 'fr', 'es', 'it', 'nl', 'pt', 'sv'])}
  -- A knowledge base's keyword language, when not English (no row: English). target_language is
  -- set while a re-index into it runs: the pipeline writes both languages' rows, and the
  -- re-index has written the target's rows of the knowledge base's items up to item id cursor.
  CREATE TABLE knowledge_base_languages (
    knowledge_base_id TEXT PRIMARY KEY,
    language          TEXT NOT NULL,
    target_language   TEXT,
    cursor            INTEGER NOT NULL DEFAULT 0,
    done              INTEGER NOT NULL DEFAULT 0,
    total             INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  `,
  `
  -- Files as knowledge (server/http/routes/files.ts): an item made from an uploaded file names its
  -- original (kept content-addressed in the data folder's originals/, by SHA-256), so the original
  -- goes once no item uses it. Its chunks carry where they come from: the PDF page, or the path of
  -- headings above them ("Returns › Damaged goods"), for citations.
  ALTER TABLE items ADD COLUMN original_sha256 TEXT;
  CREATE INDEX items_by_original ON items (original_sha256) WHERE original_sha256 IS NOT NULL;
  ALTER TABLE chunks ADD COLUMN page INTEGER;
  ALTER TABLE chunks ADD COLUMN section TEXT;
  `,
  `
  -- Visitors' questions grouped by meaning (server/domain/question-grouping.ts): the same question
  -- worded differently belongs to one group, per knowledge base. A group keeps the running mean
  -- of its questions' vectors under the model that made them (another model regroups everything)
  -- and, once the owner wrote the answer, when and which item. Reports count the turns that
  -- name a group, so what retention removes leaves them; a group no turn names is removed.
  CREATE TABLE question_groups (
    id                INTEGER PRIMARY KEY,
    knowledge_base_id TEXT NOT NULL,
    model             TEXT NOT NULL,
    label             TEXT NOT NULL,
    stems             TEXT NOT NULL,
    centroid          BLOB NOT NULL,
    members           INTEGER NOT NULL,
    created_at        INTEGER NOT NULL,
    answered_at       INTEGER,
    answered_item     TEXT
  ) STRICT;
  CREATE INDEX question_groups_by_kb ON question_groups (knowledge_base_id, model);
  ALTER TABLE visitor_turns ADD COLUMN question_group INTEGER;
  CREATE INDEX visitor_turns_by_group ON visitor_turns (question_group, asked_at);
  -- The content-gap report reads only questions abstained on or rated down: this index holds
  -- them with every column the report reads, so it never reads the turns' answers.
  CREATE INDEX visitor_turns_gaps ON visitor_turns (question_group, asked_at, widget_id, knowledge_base_id, session_id, answered, feedback, question)
    WHERE answered = 0 OR feedback = 'down';
  -- The grouping pass's queue: turns not grouped yet, oldest first.
  CREATE INDEX visitor_turns_ungrouped ON visitor_turns (asked_at) WHERE question_group IS NULL;
  -- Hourly counts the analytics read instead of every turn (GET /usage over 30 days of 100,000
  -- conversations): questions per group, written by the grouping pass, and cited items, written
  -- with the turn. Both go at the retention cutoff, with the conversations they count.
  CREATE TABLE visitor_group_counts (
    hour              INTEGER NOT NULL,
    widget_id         TEXT NOT NULL,
    knowledge_base_id TEXT NOT NULL,
    question_group    INTEGER NOT NULL,
    asked             INTEGER NOT NULL,
    answered          INTEGER NOT NULL,
    PRIMARY KEY (hour, widget_id, knowledge_base_id, question_group)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE visitor_citations (
    hour              INTEGER NOT NULL,
    widget_id         TEXT NOT NULL,
    knowledge_base_id TEXT NOT NULL,
    title             TEXT NOT NULL,
    url               TEXT NOT NULL,
    cited             INTEGER NOT NULL,
    PRIMARY KEY (hour, widget_id, knowledge_base_id, title, url)
  ) STRICT, WITHOUT ROWID;
  `,
  `
  -- The owner's reads at 100,000 conversations (docs/benchmarks.md, "Visitor conversations at
  -- scale"). 1. The content-gap report counts distinct visitors per group: a turn carries its
  -- session's ip_hash (written with the turn, never changed), so the report reads one index, ordered
  -- by group then visitor, instead of joining every gap question to its session; a second index
  -- orders each group's gap questions by wording for the examples.
  ALTER TABLE visitor_turns ADD COLUMN ip_hash TEXT;
  UPDATE visitor_turns SET ip_hash = (SELECT s.ip_hash FROM visitor_sessions s WHERE s.id = visitor_turns.session_id);
  DROP INDEX visitor_turns_gaps;
  CREATE INDEX visitor_turns_gap_visitors ON visitor_turns (question_group, ip_hash, asked_at, widget_id, knowledge_base_id, answered, feedback)
    WHERE answered = 0 OR feedback = 'down';
  CREATE INDEX visitor_turns_gap_wordings ON visitor_turns (question_group, question, asked_at, widget_id, knowledge_base_id)
    WHERE answered = 0 OR feedback = 'down';
  -- The analytics count each top group's wordings in the period: an index that holds them by
  -- group and time, so the count reads no turn rows (it takes the place of visitor_turns_by_group).
  DROP INDEX visitor_turns_by_group;
  CREATE INDEX visitor_turns_group_wordings ON visitor_turns (question_group, asked_at, question, widget_id, knowledge_base_id);
  -- 2. The daily roll-up of visitor_group_counts, kept by triggers (so the grouping pass, a
  -- regrouping and retention, which all write the hourly rows, keep it too): a month's top
  -- questions read a third of the rows (most groups are asked at most once a day). A day that no
  -- longer counts anything goes.
  CREATE TABLE visitor_group_days (
    day               INTEGER NOT NULL,
    widget_id         TEXT NOT NULL,
    knowledge_base_id TEXT NOT NULL,
    question_group    INTEGER NOT NULL,
    asked             INTEGER NOT NULL,
    answered          INTEGER NOT NULL,
    PRIMARY KEY (day, widget_id, knowledge_base_id, question_group)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO visitor_group_days (day, widget_id, knowledge_base_id, question_group, asked, answered)
    SELECT (hour / 86400000) * 86400000, widget_id, knowledge_base_id, question_group, sum(asked), sum(answered)
    FROM visitor_group_counts GROUP BY 1, 2, 3, 4;
  CREATE TRIGGER visitor_group_days_insert AFTER INSERT ON visitor_group_counts BEGIN
    INSERT INTO visitor_group_days (day, widget_id, knowledge_base_id, question_group, asked, answered)
      VALUES ((new.hour / 86400000) * 86400000, new.widget_id, new.knowledge_base_id, new.question_group, new.asked, new.answered)
      ON CONFLICT DO UPDATE SET asked = asked + excluded.asked, answered = answered + excluded.answered;
  END;
  CREATE TRIGGER visitor_group_days_update AFTER UPDATE ON visitor_group_counts BEGIN
    UPDATE visitor_group_days SET asked = asked - old.asked, answered = answered - old.answered
      WHERE day = (old.hour / 86400000) * 86400000 AND widget_id = old.widget_id AND knowledge_base_id = old.knowledge_base_id AND question_group = old.question_group;
    INSERT INTO visitor_group_days (day, widget_id, knowledge_base_id, question_group, asked, answered)
      VALUES ((new.hour / 86400000) * 86400000, new.widget_id, new.knowledge_base_id, new.question_group, new.asked, new.answered)
      ON CONFLICT DO UPDATE SET asked = asked + excluded.asked, answered = answered + excluded.answered;
    DELETE FROM visitor_group_days
      WHERE day = (old.hour / 86400000) * 86400000 AND widget_id = old.widget_id AND knowledge_base_id = old.knowledge_base_id AND question_group = old.question_group AND asked = 0;
  END;
  CREATE TRIGGER visitor_group_days_delete AFTER DELETE ON visitor_group_counts BEGIN
    UPDATE visitor_group_days SET asked = asked - old.asked, answered = answered - old.answered
      WHERE day = (old.hour / 86400000) * 86400000 AND widget_id = old.widget_id AND knowledge_base_id = old.knowledge_base_id AND question_group = old.question_group;
    DELETE FROM visitor_group_days
      WHERE day = (old.hour / 86400000) * 86400000 AND widget_id = old.widget_id AND knowledge_base_id = old.knowledge_base_id AND question_group = old.question_group AND asked = 0;
  END;
  -- 3. The conversations' text search is a substring search (LIKE '%word%'): a trigram index over
  -- the visitors' questions finds the turns holding every trigram of each word of 3 characters
  -- or more without reading every question; the LIKE still decides (server/storage/visitor-repo.ts).
  -- Without positions (detail = none: 2.5 times smaller), so a superset. Rows are the turns'
  -- rowids (kept by VACUUM and VACUUM INTO), written and removed by triggers, so a deleted
  -- conversation and retention take their questions out of it.
  CREATE VIRTUAL TABLE visitor_questions_fts USING fts5 (question, content = '', contentless_delete = 1, tokenize = 'trigram', detail = none);
  INSERT INTO visitor_questions_fts (rowid, question) SELECT rowid, question FROM visitor_turns;
  CREATE TRIGGER visitor_questions_fts_insert AFTER INSERT ON visitor_turns BEGIN
    INSERT INTO visitor_questions_fts (rowid, question) VALUES (new.rowid, new.question);
  END;
  CREATE TRIGGER visitor_questions_fts_delete AFTER DELETE ON visitor_turns BEGIN
    DELETE FROM visitor_questions_fts WHERE rowid = old.rowid;
  END;
  CREATE TRIGGER visitor_questions_fts_update AFTER UPDATE OF question ON visitor_turns BEGIN
    DELETE FROM visitor_questions_fts WHERE rowid = old.rowid;
    INSERT INTO visitor_questions_fts (rowid, question) VALUES (new.rowid, new.question);
  END;
  `,
  `
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
  `,
  `
  -- The paragraph of its document each chunk of an uploaded file comes from (0-based; a chunk of
  -- whole paragraphs names its first). A paragraph too long for one passage is cut into several
  -- chunks; search takes the chunks of one paragraph as one passage (server/retrieval/search.ts).
  -- Pushed items' chunks have none.
  ALTER TABLE chunks ADD COLUMN paragraph INTEGER;
  `,
  `
  -- A job's note: why a run that did not fail ended as it did ("text read by OCR … page(s) 1, 2",
  -- "superseded by a newer version", "the item was deleted"). Until now the note went into
  -- last_error, so a job that ended well showed it as an error; last_error is now the error of the
  -- job's last attempt when that attempt failed (server/storage/jobs/README.md).
  ALTER TABLE jobs ADD COLUMN note TEXT;
  -- 1. The notes already written, word for word as they were written: finish (an OCR note on a
  --    succeeded job, "superseded" on a cancelled one), recover stale ("superseded") and cancel on
  --    delete. Each replaced the last error it found, which stays in errors with every failure.
  UPDATE jobs SET note = last_error, last_error = NULL
    WHERE status IN ('succeeded', 'skipped', 'cancelled')
      AND (last_error IN ('superseded by a newer version', 'the item was deleted')
        OR last_error LIKE 'text read by OCR (text recognition) from %');
  -- 2. A job that failed, then succeeded or was skipped kept its last failure in last_error: that is
  --    history, and errors holds it (its last entry). An error found nowhere else stays (a crash
  --    on a job's last attempt is not in errors).
  UPDATE jobs SET last_error = NULL
    WHERE status IN ('succeeded', 'skipped') AND last_error IS NOT NULL
      AND last_error = json_extract(errors, '$[#-1].message');
  -- 3. A cancelled job whose last error is still an error was cancelled by a failed attempt that a
  --    newer queued version superseded (give-up.ts, the only way there): it gets that note too.
  UPDATE jobs SET note = 'superseded by a newer version'
    WHERE status = 'cancelled' AND note IS NULL AND last_error IS NOT NULL;
  `,
  `
  -- A visitor session is stored at its first question, not when it starts: its token is signed,
  -- so it needs no row to be checked. A conversation the owner deletes leaves its id here until
  -- the session's token can no longer be valid, so that its next question is refused rather than
  -- starting it again.
  CREATE TABLE visitor_sessions_deleted (
    id    TEXT PRIMARY KEY,
    until INTEGER NOT NULL
  ) STRICT;
  -- Sessions started before, that never asked anything, held nothing worth keeping.
  DELETE FROM visitor_sessions WHERE NOT EXISTS (SELECT 1 FROM visitor_turns t WHERE t.session_id = visitor_sessions.id);
  `,
  `
  -- A crash is evidence against a job only when that job is proven its cause (recover-stale.ts):
  -- the jobs a crash interrupts become suspects, run one at a time (claim.ts), and only a suspect
  -- that was alone in flight when the process or its worker thread died, twice, fails as a poison.
  -- suspect: 1 while the job waits or runs as a suspect; solo_crashes: the crashes it was alone in.
  ALTER TABLE jobs ADD COLUMN suspect INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE jobs ADD COLUMN solo_crashes INTEGER NOT NULL DEFAULT 0;
  -- The queued suspects, found by every claim without reading the queue.
  CREATE INDEX jobs_queued_suspects ON jobs (sort_key) WHERE status = 'queued' AND suspect = 1;
  `,  `
  -- Webhooks (server/webhooks/): addresses the Owner or an Admin registered, the events each wants,
  -- and its signing secret sealed with a key derived from the server secret (never listed, never logged).
  CREATE TABLE webhooks (
    id            TEXT PRIMARY KEY,
    url           TEXT NOT NULL,
    events        TEXT NOT NULL,
    secret_sealed TEXT NOT NULL,
    created_by    TEXT,
    created_at    INTEGER NOT NULL
  ) STRICT;
  -- One delivery: the events of one second for one webhook, POSTed as one body until a 2xx answer
  -- or the last attempt. Pending deliveries live here so a restart goes on with them; finished
  -- ones are pruned after the retention period (delivery.ts).
  -- state: pending (not tried yet; the open batch of its second while attempts = 0),
  -- retrying (failed, tried again at next_at), delivered, failed (gave up).
  CREATE TABLE webhook_deliveries (
    id          TEXT PRIMARY KEY,
    webhook_id  TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    second      INTEGER NOT NULL,
    events      TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('pending', 'retrying', 'delivered', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_at     INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE state IN ('pending', 'retrying');
  CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at);
  CREATE INDEX webhook_deliveries_by_update ON webhook_deliveries (updated_at) WHERE state IN ('delivered', 'failed');
  -- Each attempt of a delivery, for the delivery log: its HTTP status or its error, and how long it took.
  CREATE TABLE webhook_attempts (
    delivery_id  TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt      INTEGER NOT NULL,
    at           INTEGER NOT NULL,
    http_status  INTEGER,
    error        TEXT,
    duration_ms  INTEGER NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
  ) STRICT;
  `,
  `
  -- Website sources (server/sources/): a site crawled into a knowledge base, its pages as they were
  -- last read (validators and text hash, so a re-sync re-embeds only what changed; misses counts
  -- syncs in a row that did not find the page), and each sync with its progress and summary.
  CREATE TABLE website_sources (
    id                TEXT PRIMARY KEY,
    knowledge_base_id TEXT NOT NULL,
    settings          TEXT NOT NULL,
    every_ms          INTEGER,
    created_at        INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE website_pages (
    source_id     TEXT NOT NULL REFERENCES website_sources(id) ON DELETE CASCADE,
    url           TEXT NOT NULL,
    etag          TEXT,
    last_modified TEXT,
    hash          TEXT NOT NULL,
    -- the in-scope addresses the page linked to (JSON): a page answering 304 is not read again,
    -- and the pages found only through it must still count as found
    links         TEXT NOT NULL DEFAULT '[]',
    misses        INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (source_id, url)
  ) STRICT;
  CREATE TABLE website_syncs (
    id          TEXT PRIMARY KEY,
    source_id   TEXT NOT NULL REFERENCES website_sources(id) ON DELETE CASCADE,
    state       TEXT NOT NULL CHECK (state IN ('running', 'succeeded', 'failed')),
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    summary     TEXT NOT NULL,
    error       TEXT
  ) STRICT;
  CREATE INDEX website_syncs_by_source ON website_syncs (source_id, started_at);
  `,
  `
  -- Curated answers: the owner's own answer to a question of a knowledge base, given as written to
  -- a visitor question that means the same (server/retrieval/curated). also_asked: a JSON array of
  -- the question's other phrasings.
  CREATE TABLE curated_answers (
    id                INTEGER PRIMARY KEY,
    knowledge_base_id TEXT NOT NULL,
    question          TEXT NOT NULL,
    answer            TEXT NOT NULL,
    also_asked        TEXT NOT NULL DEFAULT '[]',
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX curated_answers_by_knowledge_base ON curated_answers (knowledge_base_id, id);
  `,
  `
  -- Searchable at once (docs/pipeline.md, "Two phases"): an item's text is indexed (item row,
  -- chunks, keyword rows) as soon as it is chunked, its vectors when the pipeline embeds it.
  -- items.indexing: 'text' while its chunks wait for vectors, 'complete' once they have them.
  ALTER TABLE items ADD COLUMN indexing TEXT NOT NULL DEFAULT 'complete' CHECK (indexing IN ('text', 'complete'));
  -- jobs.text_pending: 1 while a queued job's text phase waits (pushed items; files are read by
  -- the embedding pass), 2 while a worker's text pass holds it, 0 once done or not needed.
  ALTER TABLE jobs ADD COLUMN text_pending INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX jobs_text_pending ON jobs (text_pending, id) WHERE text_pending <> 0;
  -- A job that leaves the queue for good has no text phase left to run.
  CREATE TRIGGER jobs_text_pending_settled AFTER UPDATE OF status ON jobs
    WHEN NEW.text_pending <> 0 AND NEW.status NOT IN ('queued', 'processing')
  BEGIN
    UPDATE jobs SET text_pending = 0 WHERE id = NEW.id;
  END;
  `,
];

/** The keyword tables of languages analyzed before FTS5 sees their text (a migration's SQL). */
function languageTables(languages: string[]): string {
  return languages
    .map((language) =>
      ['items', 'chunks']
        .map(
          (kind) => `CREATE VIRTUAL TABLE ${kind}_fts_${language} USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );`,
        )
        .join('\n  '),
    )
    .join('\n  ');
}
