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
