  -- Curated answers: the owner's own answer to a question of a knowledge base, given as written to
  -- a visitor question that means the same (server/retrieval/curated). also_asked: a JSON array of
  -- the question's other phrasings.
  CREATE TABLE curated_answers (
    id                INTEGER PRIMARY KEY,
    knowledge_base_id TEXT NOT NULL,
    question          TEXT NOT NULL,
    answer            TEXT NOT NULL,
    also_asked        TEXT NOT NULL DEFAULT '[]',
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX curated_answers_by_knowledge_base ON curated_answers (knowledge_base_id, id);
