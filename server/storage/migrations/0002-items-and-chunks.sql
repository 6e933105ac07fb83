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
