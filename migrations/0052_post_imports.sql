-- Post history imports (issue 16 part 7): a Mastodon archive ZIP uploaded on the settings
-- page. One row per upload; the archive waits under <dataDir>/imports/ until the job is done.
-- The job first lists the archive's posts (post_import_items, one per Create of a Note), then
-- imports them oldest first; an item that is skipped or imported only in part keeps why.
CREATE TABLE post_imports (
  id                INTEGER PRIMARY KEY,
  account_id        INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  file              TEXT,                     -- name under imports/; NULL once done or refused
  original_filename TEXT NOT NULL DEFAULT '',
  deliver           INTEGER NOT NULL DEFAULT 0, -- "send to followers"
  state             TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'in_progress', 'finished', 'failed')),
  error             TEXT,                     -- why the whole archive was refused
  total_items       INTEGER NOT NULL DEFAULT 0,
  processed_items   INTEGER NOT NULL DEFAULT 0,
  imported_items    INTEGER NOT NULL DEFAULT 0,
  boosts_skipped    INTEGER NOT NULL DEFAULT 0,
  other_skipped     INTEGER NOT NULL DEFAULT 0, -- activities that are neither a post nor a boost
  created_at        INTEGER NOT NULL,
  finished_at       INTEGER
);
CREATE INDEX post_imports_account ON post_imports (account_id, id);

CREATE TABLE post_import_items (
  id             INTEGER PRIMARY KEY,
  post_import_id INTEGER NOT NULL REFERENCES post_imports(id) ON DELETE CASCADE,
  published      INTEGER NOT NULL,            -- ms; the import goes oldest first
  source_uri     TEXT NOT NULL,
  data           TEXT NOT NULL,               -- the Note's JSON
  processed      INTEGER NOT NULL DEFAULT 0,
  status_id      INTEGER,                     -- the post made from it
  note           TEXT                         -- why it was skipped, or what was left out
);
CREATE INDEX post_import_items_pending ON post_import_items (post_import_id, processed, published, id);

-- What was imported from where, per account: a second import of the same archive adds nothing,
-- and a reply finds its imported parent. Deleting the post forgets it.
CREATE TABLE imported_statuses (
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  source_uri TEXT NOT NULL,
  status_id  INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
  PRIMARY KEY (account_id, source_uri)
) WITHOUT ROWID;
CREATE INDEX imported_statuses_status ON imported_statuses (status_id);
