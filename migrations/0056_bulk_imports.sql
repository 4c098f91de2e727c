-- CSV imports of the settings page (Mastodon's BulkImport): one row per uploaded file, one row
-- per CSV line. The job works through unprocessed rows; a row that fails keeps its error, so
-- the page reports it and the rest still import.
CREATE TABLE bulk_imports (
  id              INTEGER PRIMARY KEY,
  account_id      INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  type            TEXT NOT NULL,             -- following | blocking | muting | domain_blocking | bookmarks | lists
  overwrite       INTEGER NOT NULL DEFAULT 0,
  state           TEXT NOT NULL DEFAULT 'in_progress' CHECK (state IN ('in_progress', 'finished')),
  original_filename TEXT NOT NULL DEFAULT '',
  total_items     INTEGER NOT NULL DEFAULT 0,
  processed_items INTEGER NOT NULL DEFAULT 0,
  imported_items  INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  finished_at     INTEGER
);
CREATE INDEX bulk_imports_account ON bulk_imports (account_id, id);

CREATE TABLE bulk_import_rows (
  id             INTEGER PRIMARY KEY,
  bulk_import_id INTEGER NOT NULL REFERENCES bulk_imports(id) ON DELETE CASCADE,
  data           TEXT NOT NULL,              -- JSON of the row's fields
  processed      INTEGER NOT NULL DEFAULT 0,
  error          TEXT                        -- why the row was not imported
);
CREATE INDEX bulk_import_rows_pending ON bulk_import_rows (bulk_import_id, processed, id);

-- Account archives (Mastodon's Backup): one per request, a ZIP under <dataDir>/archives/ once
-- the job has written it, removed a week after.
CREATE TABLE account_archives (
  id          INTEGER PRIMARY KEY,
  account_id  INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  file        TEXT,                          -- name under archives/; NULL until written
  size        INTEGER,
  created_at  INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX account_archives_account ON account_archives (account_id, id);
