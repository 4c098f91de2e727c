-- Keyword filters (Mastodon's CustomFilter, CustomFilterKeyword, CustomFilterStatus). A v1
-- filter is a view over these: one keyword of a filter.
CREATE TABLE filters (
  id         INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  title      TEXT NOT NULL,
  context    TEXT NOT NULL,                   -- JSON array of home, notifications, public, thread, account
  action     TEXT NOT NULL DEFAULT 'warn' CHECK (action IN ('warn', 'hide', 'blur')),
  expires_at INTEGER,                         -- ms; null: never
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX filters_account ON filters (account_id);

CREATE TABLE filter_keywords (
  id         INTEGER PRIMARY KEY,
  filter_id  INTEGER NOT NULL REFERENCES filters(id) ON DELETE CASCADE,
  keyword    TEXT NOT NULL,
  whole_word INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX filter_keywords_filter ON filter_keywords (filter_id);

CREATE TABLE filter_statuses (
  id         INTEGER PRIMARY KEY,
  filter_id  INTEGER NOT NULL REFERENCES filters(id) ON DELETE CASCADE,
  status_id  INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  UNIQUE (filter_id, status_id)
);
CREATE INDEX filter_statuses_status ON filter_statuses (status_id);
