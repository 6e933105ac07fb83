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
