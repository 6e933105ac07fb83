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
