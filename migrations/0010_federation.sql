-- Federation (ActivityPub): inbox dedupe, outgoing activities and their delivery state,
-- per-domain peer state, tombstones of deleted remote objects, and reports (remote Flags land
-- here; local reports are sent as Flags).

-- Activity ids already received (dedupe: a repeated delivery is answered 202 and dropped).
CREATE TABLE inbox_activity_ids (
  uri         TEXT PRIMARY KEY,
  received_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX inbox_activity_ids_received ON inbox_activity_ids (received_at);

-- An outgoing activity body, stored once; one `federation.deliver` job per inbox refers to it.
CREATE TABLE outgoing_activities (
  id                INTEGER PRIMARY KEY,
  actor_account_id  INTEGER REFERENCES accounts(id) ON DELETE CASCADE, -- NULL: the instance actor
  body              TEXT NOT NULL,                -- the JSON as sent
  created_at        INTEGER NOT NULL
);
CREATE INDEX outgoing_activities_created ON outgoing_activities (created_at);

-- What we know about each peer server (host[:port], lower-case).
CREATE TABLE federation_peers (
  domain               TEXT PRIMARY KEY,
  -- Consecutive delivery failures and since when; cleared by any success or inbound activity.
  failure_count        INTEGER NOT NULL DEFAULT 0,
  first_failure_at     INTEGER,
  last_failure_at      INTEGER,
  -- Distinct UTC days with failures; at 7 the peer is unavailable (skipped) until it succeeds
  -- or sends us something.
  failure_days         INTEGER NOT NULL DEFAULT 0,
  unavailable_since    INTEGER,
  -- Signature scheme that worked last: 'cavage' or 'rfc9421' (RFC 9421 double-knock memory).
  signature_scheme     TEXT,
  last_success_at      INTEGER,
  last_inbound_at      INTEGER,
  updated_at           INTEGER NOT NULL
) WITHOUT ROWID;

-- Deleted remote statuses: a late Create/Update for the uri must not bring it back.
CREATE TABLE tombstones (
  uri        TEXT PRIMARY KEY,
  account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Reports (Mastodon's Report). Local reports by users, remote ones from Flag activities
-- (account_id is then the remote reporter or the remote instance actor's account).
CREATE TABLE reports (
  id                INTEGER PRIMARY KEY,
  account_id        INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  status_ids        TEXT NOT NULL DEFAULT '[]',   -- JSON array of status ids (strings)
  rule_ids          TEXT NOT NULL DEFAULT '[]',
  comment           TEXT NOT NULL DEFAULT '',
  category          TEXT NOT NULL DEFAULT 'other' CHECK (category IN ('spam', 'legal', 'violation', 'other')),
  forwarded         INTEGER NOT NULL DEFAULT 0,
  uri               TEXT,                         -- the Flag's id (sent or received)
  action_taken_at   INTEGER,
  assigned_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
);
CREATE INDEX reports_target ON reports (target_account_id);
CREATE INDEX reports_account ON reports (account_id);
CREATE UNIQUE INDEX reports_uri ON reports (uri) WHERE uri IS NOT NULL;

-- Remote accounts: when the actor document was last fetched (refresh of stale accounts).
ALTER TABLE accounts ADD COLUMN fetched_at INTEGER;
CREATE INDEX accounts_fetched ON accounts (fetched_at) WHERE domain IS NOT NULL;
-- Lookups by key id (incoming signatures) and by followers collection (addressing).
CREATE INDEX accounts_public_key_id ON accounts (public_key_id) WHERE public_key_id IS NOT NULL;
CREATE INDEX accounts_followers_url ON accounts (followers_url) WHERE followers_url IS NOT NULL;
-- Favourites and boosts by their activity uri (Undo Like / Undo Announce by reference).
CREATE INDEX favourites_uri ON favourites (uri) WHERE uri IS NOT NULL;
CREATE UNIQUE INDEX blocks_uri ON blocks (uri);
