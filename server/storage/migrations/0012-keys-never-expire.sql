  -- The CLI took expiries such as "1000000y", beyond the largest time a date can hold
  -- (8.64e15 ms): listing keys then failed for good. Such a key never expires in any sense.
  UPDATE api_keys SET expires_at = NULL WHERE expires_at > 8640000000000000;
