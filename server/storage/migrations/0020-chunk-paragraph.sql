  -- The paragraph of its document each chunk of an uploaded file comes from (0-based; a chunk of
  -- whole paragraphs names its first). A paragraph too long for one passage is cut into several
  -- chunks; search takes the chunks of one paragraph as one passage (server/retrieval/search.ts).
  -- Pushed items' chunks have none.
  ALTER TABLE chunks ADD COLUMN paragraph INTEGER;
