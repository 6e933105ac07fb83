  -- A deleted item remembers who deleted it (the API key, or the dashboard user), so the dashboard
  -- can say when and by whom instead of showing the item as not indexed yet.
  ALTER TABLE item_tombstones ADD COLUMN deleted_by_key_id TEXT;
  ALTER TABLE item_tombstones ADD COLUMN deleted_by_user_id TEXT;
