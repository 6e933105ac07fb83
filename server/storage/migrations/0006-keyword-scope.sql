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
