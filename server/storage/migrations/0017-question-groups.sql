  -- Visitors' questions grouped by meaning (server/domain/question-grouping.ts): the same question
  -- worded differently belongs to one group, per knowledge base. A group keeps the running mean
  -- of its questions' vectors under the model that made them (another model regroups everything)
  -- and, once the owner wrote the answer, when and which item. Reports count the turns that
  -- name a group, so what retention removes leaves them; a group no turn names is removed.
  CREATE TABLE question_groups (
    id                INTEGER PRIMARY KEY,
    knowledge_base_id TEXT NOT NULL,
    model             TEXT NOT NULL,
    label             TEXT NOT NULL,
    stems             TEXT NOT NULL,
    centroid          BLOB NOT NULL,
    members           INTEGER NOT NULL,
    created_at        INTEGER NOT NULL,
    answered_at       INTEGER,
    answered_item     TEXT
  ) STRICT;
  CREATE INDEX question_groups_by_kb ON question_groups (knowledge_base_id, model);
  ALTER TABLE visitor_turns ADD COLUMN question_group INTEGER;
  CREATE INDEX visitor_turns_by_group ON visitor_turns (question_group, asked_at);
  -- The content-gap report reads only questions abstained on or rated down: this index holds
  -- them with every column the report reads, so it never reads the turns' answers.
  CREATE INDEX visitor_turns_gaps ON visitor_turns (question_group, asked_at, widget_id, knowledge_base_id, session_id, answered, feedback, question)
    WHERE answered = 0 OR feedback = 'down';
  -- The grouping pass's queue: turns not grouped yet, oldest first.
  CREATE INDEX visitor_turns_ungrouped ON visitor_turns (asked_at) WHERE question_group IS NULL;
  -- Hourly counts the analytics read instead of every turn (GET /usage over 30 days of 100,000
  -- conversations): questions per group, written by the grouping pass, and cited items, written
  -- with the turn. Both go at the retention cutoff, with the conversations they count.
  CREATE TABLE visitor_group_counts (
    hour              INTEGER NOT NULL,
    widget_id         TEXT NOT NULL,
    knowledge_base_id TEXT NOT NULL,
    question_group    INTEGER NOT NULL,
    asked             INTEGER NOT NULL,
    answered          INTEGER NOT NULL,
    PRIMARY KEY (hour, widget_id, knowledge_base_id, question_group)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE visitor_citations (
    hour              INTEGER NOT NULL,
    widget_id         TEXT NOT NULL,
    knowledge_base_id TEXT NOT NULL,
    title             TEXT NOT NULL,
    url               TEXT NOT NULL,
    cited             INTEGER NOT NULL,
    PRIMARY KEY (hour, widget_id, knowledge_base_id, title, url)
  ) STRICT, WITHOUT ROWID;
