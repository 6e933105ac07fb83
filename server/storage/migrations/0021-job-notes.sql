  -- A job's note: why a run that did not fail ended as it did ("text read by OCR … page(s) 1, 2",
  -- "superseded by a newer version", "the item was deleted"). Until now the note went into
  -- last_error, so a job that ended well showed it as an error; last_error is now the error of the
  -- job's last attempt when that attempt failed (server/storage/jobs/README.md).
  ALTER TABLE jobs ADD COLUMN note TEXT;
  -- 1. The notes already written, word for word as they were written: finish (an OCR note on a
  --    succeeded job, "superseded" on a cancelled one), recover stale ("superseded") and cancel on
  --    delete. Each replaced the last error it found, which stays in errors with every failure.
  UPDATE jobs SET note = last_error, last_error = NULL
    WHERE status IN ('succeeded', 'skipped', 'cancelled')
      AND (last_error IN ('superseded by a newer version', 'the item was deleted')
        OR last_error LIKE 'text read by OCR (text recognition) from %');
  -- 2. A job that failed, then succeeded or was skipped kept its last failure in last_error: that is
  --    history, and errors holds it (its last entry). An error found nowhere else stays (a crash
  --    on a job's last attempt is not in errors).
  UPDATE jobs SET last_error = NULL
    WHERE status IN ('succeeded', 'skipped') AND last_error IS NOT NULL
      AND last_error = json_extract(errors, '$[#-1].message');
  -- 3. A cancelled job whose last error is still an error was cancelled by a failed attempt that a
  --    newer queued version superseded (give-up.ts, the only way there): it gets that note too.
  UPDATE jobs SET note = 'superseded by a newer version'
    WHERE status = 'cancelled' AND note IS NULL AND last_error IS NOT NULL;
