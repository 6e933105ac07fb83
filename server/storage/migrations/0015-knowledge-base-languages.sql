  -- The knowledge base's language (docs/retrieval.md, "Languages"). English keeps items_fts and
  -- chunks_fts (FTS5's Porter stemmer). Every other language has its own pair of keyword tables,
  -- holding the terms of server/domain/keyword-language.ts (folded, stop words out, Snowball stems)
  -- joined by spaces, under a tokenizer that only splits them: BM25's statistics stay within a
  -- language, and a knowledge base moving from one language to another is written into the new
  -- pair while the old one answers.
  CREATE VIRTUAL TABLE items_fts_de USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE chunks_fts_de USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE items_fts_fr USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE chunks_fts_fr USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE items_fts_es USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE chunks_fts_es USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE items_fts_it USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE chunks_fts_it USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE items_fts_nl USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE chunks_fts_nl USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE items_fts_pt USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE chunks_fts_pt USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE items_fts_sv USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIRTUAL TABLE chunks_fts_sv USING fts5 (
    title, text, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
  );
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
