  -- A crash is evidence against a job only when that job is proven its cause (recover-stale.ts):
  -- the jobs a crash interrupts become suspects, run one at a time (claim.ts), and only a suspect
  -- that was alone in flight when the process or its worker thread died, twice, fails as a poison.
  -- suspect: 1 while the job waits or runs as a suspect; solo_crashes: the crashes it was alone in.
  ALTER TABLE jobs ADD COLUMN suspect INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE jobs ADD COLUMN solo_crashes INTEGER NOT NULL DEFAULT 0;
  -- The queued suspects, found by every claim without reading the queue.
  CREATE INDEX jobs_queued_suspects ON jobs (sort_key) WHERE status = 'queued' AND suspect = 1;
