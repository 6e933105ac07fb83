  -- A job inserted and then changed in one transaction (the same item twice in a bulk, or pushes
  -- sharing a commit, at another priority the second time) was taken off a count row that did not
  -- exist yet, since the job repository adds its inserts when the transaction ends: the old
  -- priority kept one job too many for good. Taking off now creates the row at -1 when needed, so
  -- the order of the two no longer matters, and counts that drifted are counted again.
  DROP TRIGGER job_counts_on_update;
  DROP TRIGGER job_counts_on_delete;
  CREATE TRIGGER job_counts_on_update AFTER UPDATE OF knowledge_base_id, status, priority ON jobs
  WHEN OLD.knowledge_base_id IS NOT NEW.knowledge_base_id OR OLD.status IS NOT NEW.status
    OR OLD.priority IS NOT NEW.priority
  BEGIN
    INSERT INTO job_counts VALUES (OLD.knowledge_base_id, OLD.status, OLD.priority, -1)
      ON CONFLICT DO UPDATE SET n = n - 1;
    INSERT INTO job_counts VALUES (NEW.knowledge_base_id, NEW.status, NEW.priority, 1)
      ON CONFLICT DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER job_counts_on_delete AFTER DELETE ON jobs
  BEGIN
    INSERT INTO job_counts VALUES (OLD.knowledge_base_id, OLD.status, OLD.priority, -1)
      ON CONFLICT DO UPDATE SET n = n - 1;
  END;
  DELETE FROM job_counts;
  INSERT INTO job_counts (knowledge_base_id, status, priority, n)
    SELECT knowledge_base_id, status, priority, count(*) FROM jobs GROUP BY knowledge_base_id, status, priority;
