  -- Webhooks (server/webhooks/): addresses the Owner or an Admin registered, the events each wants,
  -- and its signing secret sealed with a key derived from the server secret (never listed, never logged).
  CREATE TABLE webhooks (
    id            TEXT PRIMARY KEY,
    url           TEXT NOT NULL,
    events        TEXT NOT NULL,
    secret_sealed TEXT NOT NULL,
    created_by    TEXT,
    created_at    INTEGER NOT NULL
  ) STRICT;
  -- One delivery: the events of one second for one webhook, POSTed as one body until a 2xx answer
  -- or the last attempt. Pending deliveries live here so a restart goes on with them; finished
  -- ones are pruned after the retention period (delivery.ts).
  -- state: pending (not tried yet; the open batch of its second while attempts = 0),
  -- retrying (failed, tried again at next_at), delivered, failed (gave up).
  CREATE TABLE webhook_deliveries (
    id          TEXT PRIMARY KEY,
    webhook_id  TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    second      INTEGER NOT NULL,
    events      TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('pending', 'retrying', 'delivered', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_at     INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE state IN ('pending', 'retrying');
  CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at);
  CREATE INDEX webhook_deliveries_by_update ON webhook_deliveries (updated_at) WHERE state IN ('delivered', 'failed');
  -- Each attempt of a delivery, for the delivery log: its HTTP status or its error, and how long it took.
  CREATE TABLE webhook_attempts (
    delivery_id  TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt      INTEGER NOT NULL,
    at           INTEGER NOT NULL,
    http_status  INTEGER,
    error        TEXT,
    duration_ms  INTEGER NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
  ) STRICT;
