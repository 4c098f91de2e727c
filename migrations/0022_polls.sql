-- Polls (Mastodon's polls and poll_votes). A status has at most one poll; statuses.poll_id
-- points at it so that a page of statuses knows, from the rows it already has, whether it needs
-- to read any poll at all (most pages have none).
CREATE TABLE polls (
  id               INTEGER PRIMARY KEY,
  status_id        INTEGER NOT NULL UNIQUE REFERENCES statuses(id) ON DELETE CASCADE,
  account_id       INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  options          TEXT NOT NULL,                -- JSON array of option titles
  tallies          TEXT NOT NULL,                -- JSON array of vote counts, one per option
  multiple         INTEGER NOT NULL DEFAULT 0,
  hide_totals      INTEGER NOT NULL DEFAULT 0,
  votes_count      INTEGER NOT NULL DEFAULT 0,   -- sum of the tallies
  voters_count     INTEGER,                      -- distinct voters; null when a remote poll does not say
  expires_at       INTEGER,                      -- ms; null: never ends (remote polls only)
  -- When the end was handled (notifications sent, final tallies distributed): once per end.
  closed_at        INTEGER,
  -- A pending Update(Question) with new tallies is due then (votes are batched, as Mastodon's 3 minutes).
  update_due_at    INTEGER,
  last_fetched_at  INTEGER,                      -- remote polls: last refresh from the origin
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL
);
CREATE INDEX polls_account ON polls (account_id);

CREATE TABLE poll_votes (
  id          INTEGER PRIMARY KEY,
  poll_id     INTEGER NOT NULL REFERENCES polls(id) ON DELETE CASCADE,
  account_id  INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  choice      INTEGER NOT NULL,
  uri         TEXT,                                -- a remote vote's Note id
  created_at  INTEGER NOT NULL
);
CREATE INDEX poll_votes_poll_account ON poll_votes (poll_id, account_id);
CREATE INDEX poll_votes_account ON poll_votes (account_id, poll_id);
CREATE UNIQUE INDEX poll_votes_uri ON poll_votes (uri) WHERE uri IS NOT NULL;

ALTER TABLE statuses ADD COLUMN poll_id INTEGER;

-- A revision's poll: its option titles (GET /api/v1/statuses/:id/history), null without a poll.
ALTER TABLE status_edits ADD COLUMN poll_options TEXT;
