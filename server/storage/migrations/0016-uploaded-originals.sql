  -- Files as knowledge (server/http/routes/files.ts): an item made from an uploaded file names its
  -- original (kept content-addressed in the data folder's originals/, by SHA-256), so the original
  -- goes once no item uses it. Its chunks carry where they come from: the PDF page, or the path of
  -- headings above them ("Returns › Damaged goods"), for citations.
  ALTER TABLE items ADD COLUMN original_sha256 TEXT;
  CREATE INDEX items_by_original ON items (original_sha256) WHERE original_sha256 IS NOT NULL;
  ALTER TABLE chunks ADD COLUMN page INTEGER;
  ALTER TABLE chunks ADD COLUMN section TEXT;
