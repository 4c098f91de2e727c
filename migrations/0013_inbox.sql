-- Incoming Move activities (AP §5.11): when each remote account's migration was last carried
-- out, so that a repeated Move moves followers at most once per 7 days.
CREATE TABLE account_moves (
  account_id        INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  target_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL,
  processed_at      INTEGER NOT NULL
);
