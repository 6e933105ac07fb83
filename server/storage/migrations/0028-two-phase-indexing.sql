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
