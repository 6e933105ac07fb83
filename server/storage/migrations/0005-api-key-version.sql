  -- API keys are cached in memory by the server; any change to a key, by any process (the CLI
  -- revokes from its own), bumps this version in the same transaction, and the server reads it
  -- after receiving requests and before authenticating them. The last-used time is not part of
  -- it: touching a key changes nothing it grants.
  INSERT INTO counters (name, value) VALUES ('api_keys_version', 0) ON CONFLICT (name) DO NOTHING;
  CREATE TRIGGER api_keys_version_on_insert AFTER INSERT ON api_keys
  BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'api_keys_version';
  END;
  CREATE TRIGGER api_keys_version_on_update
    AFTER UPDATE OF id, name, description, secret_hash, scopes, knowledge_base_ids, created_by, created_at,
      expires_at, revoked_at, rotated_from ON api_keys
  BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'api_keys_version';
  END;
  CREATE TRIGGER api_keys_version_on_delete AFTER DELETE ON api_keys
  BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'api_keys_version';
  END;

  -- A trigger on every job insert cost a sixth of the insert (SQLite builds the new row for it)
  -- although only pushes of unchanged content insert a settled job; the job repo counts those
  -- itself, in the same transaction (job-repo.ts, insertSkipped).
  DROP TRIGGER usage_job_settled_on_insert;
