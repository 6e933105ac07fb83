  -- A visitor session is stored at its first question, not when it starts: its token is signed,
  -- so it needs no row to be checked. A conversation the owner deletes leaves its id here until
  -- the session's token can no longer be valid, so that its next question is refused rather than
  -- starting it again.
  CREATE TABLE visitor_sessions_deleted (
    id    TEXT PRIMARY KEY,
    until INTEGER NOT NULL
  ) STRICT;
  -- Sessions started before, that never asked anything, held nothing worth keeping.
  DELETE FROM visitor_sessions WHERE NOT EXISTS (SELECT 1 FROM visitor_turns t WHERE t.session_id = visitor_sessions.id);
