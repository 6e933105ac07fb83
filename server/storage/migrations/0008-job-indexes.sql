  -- A job's seed jobId is integration_id || '-' || external_id, so jobs_by_job_id held the same
  -- strings as jobs_by_item a second time, and every pushed job paid for both (with scattered
  -- external ids, a leaf page each per job in every commit). One index, led by integration and
  -- external id, now serves a jobId (looked up as each way it splits at a hyphen) and an item.
  -- Listing a knowledge base's jobs newest first gets a short index of its own, whose new entries
  -- land together at the end of each knowledge base's range.
  DROP INDEX jobs_by_job_id;
  DROP INDEX jobs_by_item;
  CREATE INDEX jobs_by_item ON jobs (integration_id, external_id, knowledge_base_id, id);
  CREATE INDEX jobs_by_knowledge_base ON jobs (knowledge_base_id, id);
