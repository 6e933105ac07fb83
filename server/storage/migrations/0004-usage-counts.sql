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
