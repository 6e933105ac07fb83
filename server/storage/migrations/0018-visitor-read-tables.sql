  -- The owner's reads at 100,000 conversations (docs/benchmarks.md, "Visitor conversations at
  -- scale"). 1. The content-gap report counts distinct visitors per group: a turn carries its
  -- session's ip_hash (written with the turn, never changed), so the report reads one index, ordered
  -- by group then visitor, instead of joining every gap question to its session; a second index
  -- orders each group's gap questions by wording for the examples.
  ALTER TABLE visitor_turns ADD COLUMN ip_hash TEXT;
  UPDATE visitor_turns SET ip_hash = (SELECT s.ip_hash FROM visitor_sessions s WHERE s.id = visitor_turns.session_id);
  DROP INDEX visitor_turns_gaps;
  CREATE INDEX visitor_turns_gap_visitors ON visitor_turns (question_group, ip_hash, asked_at, widget_id, knowledge_base_id, answered, feedback)
    WHERE answered = 0 OR feedback = 'down';
  CREATE INDEX visitor_turns_gap_wordings ON visitor_turns (question_group, question, asked_at, widget_id, knowledge_base_id)
    WHERE answered = 0 OR feedback = 'down';
  -- The analytics count each top group's wordings in the period: an index that holds them by
  -- group and time, so the count reads no turn rows (it takes the place of visitor_turns_by_group).
  DROP INDEX visitor_turns_by_group;
  CREATE INDEX visitor_turns_group_wordings ON visitor_turns (question_group, asked_at, question, widget_id, knowledge_base_id);
  -- 2. The daily roll-up of visitor_group_counts, kept by triggers (so the grouping pass, a
  -- regrouping and retention, which all write the hourly rows, keep it too): a month's top
  -- questions read a third of the rows (most groups are asked at most once a day). A day that no
  -- longer counts anything goes.
  CREATE TABLE visitor_group_days (
    day               INTEGER NOT NULL,
    widget_id         TEXT NOT NULL,
    knowledge_base_id TEXT NOT NULL,
    question_group    INTEGER NOT NULL,
    asked             INTEGER NOT NULL,
    answered          INTEGER NOT NULL,
    PRIMARY KEY (day, widget_id, knowledge_base_id, question_group)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO visitor_group_days (day, widget_id, knowledge_base_id, question_group, asked, answered)
    SELECT (hour / 86400000) * 86400000, widget_id, knowledge_base_id, question_group, sum(asked), sum(answered)
    FROM visitor_group_counts GROUP BY 1, 2, 3, 4;
  CREATE TRIGGER visitor_group_days_insert AFTER INSERT ON visitor_group_counts BEGIN
    INSERT INTO visitor_group_days (day, widget_id, knowledge_base_id, question_group, asked, answered)
      VALUES ((new.hour / 86400000) * 86400000, new.widget_id, new.knowledge_base_id, new.question_group, new.asked, new.answered)
      ON CONFLICT DO UPDATE SET asked = asked + excluded.asked, answered = answered + excluded.answered;
  END;
  CREATE TRIGGER visitor_group_days_update AFTER UPDATE ON visitor_group_counts BEGIN
    UPDATE visitor_group_days SET asked = asked - old.asked, answered = answered - old.answered
      WHERE day = (old.hour / 86400000) * 86400000 AND widget_id = old.widget_id AND knowledge_base_id = old.knowledge_base_id AND question_group = old.question_group;
    INSERT INTO visitor_group_days (day, widget_id, knowledge_base_id, question_group, asked, answered)
      VALUES ((new.hour / 86400000) * 86400000, new.widget_id, new.knowledge_base_id, new.question_group, new.asked, new.answered)
      ON CONFLICT DO UPDATE SET asked = asked + excluded.asked, answered = answered + excluded.answered;
    DELETE FROM visitor_group_days
      WHERE day = (old.hour / 86400000) * 86400000 AND widget_id = old.widget_id AND knowledge_base_id = old.knowledge_base_id AND question_group = old.question_group AND asked = 0;
  END;
  CREATE TRIGGER visitor_group_days_delete AFTER DELETE ON visitor_group_counts BEGIN
    UPDATE visitor_group_days SET asked = asked - old.asked, answered = answered - old.answered
      WHERE day = (old.hour / 86400000) * 86400000 AND widget_id = old.widget_id AND knowledge_base_id = old.knowledge_base_id AND question_group = old.question_group;
    DELETE FROM visitor_group_days
      WHERE day = (old.hour / 86400000) * 86400000 AND widget_id = old.widget_id AND knowledge_base_id = old.knowledge_base_id AND question_group = old.question_group AND asked = 0;
  END;
  -- 3. The conversations' text search is a substring search (LIKE '%word%'): a trigram index over
  -- the visitors' questions finds the turns holding every trigram of each word of 3 characters
  -- or more without reading every question; the LIKE still decides (server/storage/visitor-repo.ts).
  -- Without positions (detail = none: 2.5 times smaller), so a superset. Rows are the turns'
  -- rowids (kept by VACUUM and VACUUM INTO), written and removed by triggers, so a deleted
  -- conversation and retention take their questions out of it.
  CREATE VIRTUAL TABLE visitor_questions_fts USING fts5 (question, content = '', contentless_delete = 1, tokenize = 'trigram', detail = none);
  INSERT INTO visitor_questions_fts (rowid, question) SELECT rowid, question FROM visitor_turns;
  CREATE TRIGGER visitor_questions_fts_insert AFTER INSERT ON visitor_turns BEGIN
    INSERT INTO visitor_questions_fts (rowid, question) VALUES (new.rowid, new.question);
  END;
  CREATE TRIGGER visitor_questions_fts_delete AFTER DELETE ON visitor_turns BEGIN
    DELETE FROM visitor_questions_fts WHERE rowid = old.rowid;
  END;
  CREATE TRIGGER visitor_questions_fts_update AFTER UPDATE OF question ON visitor_turns BEGIN
    DELETE FROM visitor_questions_fts WHERE rowid = old.rowid;
    INSERT INTO visitor_questions_fts (rowid, question) VALUES (new.rowid, new.question);
  END;
