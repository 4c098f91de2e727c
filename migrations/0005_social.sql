-- Social core: mentions, tags, interactions, edits, relationships, lists, feeds,
-- notifications, conversations, markers. Remote rows use the same tables (federation
-- fills them through the same services), so every relationship record has a stored `uri`.

CREATE TABLE mentions (
  id         INTEGER PRIMARY KEY,
  status_id  INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  silent     INTEGER NOT NULL DEFAULT 0,          -- 1: kept for addressing, no notification
  created_at INTEGER NOT NULL,
  UNIQUE (status_id, account_id)
);
CREATE INDEX mentions_account ON mentions (account_id, status_id);

CREATE TABLE tags (
  id             INTEGER PRIMARY KEY,
  name           TEXT NOT NULL UNIQUE,            -- normalised: lower-cased, accent/width-folded
  display_name   TEXT NOT NULL,                   -- as first written
  last_status_at INTEGER,
  created_at     INTEGER NOT NULL
);

CREATE TABLE statuses_tags (
  status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
  tag_id    INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  PRIMARY KEY (tag_id, status_id)
) WITHOUT ROWID;
CREATE INDEX statuses_tags_status ON statuses_tags (status_id);

CREATE TABLE favourites (
  id         INTEGER PRIMARY KEY,                 -- the hidden cursor of favourited_by / favourites
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  status_id  INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
  uri        TEXT,
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, status_id)
);
CREATE INDEX favourites_status ON favourites (status_id, id);

CREATE TABLE bookmarks (
  id         INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  status_id  INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, status_id)
);

CREATE TABLE status_pins (
  id         INTEGER PRIMARY KEY,                 -- pin order: newest pin first
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  status_id  INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, status_id)
);

-- One row per revision, the original included once the status is first edited.
CREATE TABLE status_edits (
  id           INTEGER PRIMARY KEY,
  status_id    INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
  account_id   INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  text         TEXT NOT NULL DEFAULT '',
  content      TEXT NOT NULL DEFAULT '',
  spoiler_text TEXT NOT NULL DEFAULT '',
  sensitive    INTEGER NOT NULL DEFAULT 0,
  language     TEXT,
  media_ids    TEXT NOT NULL DEFAULT '[]',
  created_at   INTEGER NOT NULL
);
CREATE INDEX status_edits_status ON status_edits (status_id, id);

-- A thread. statuses.conversation_id points here; a reply inherits its parent's.
CREATE TABLE conversations (
  id         INTEGER PRIMARY KEY,
  uri        TEXT,                                -- remote context/conversation id, if any
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX conversations_uri ON conversations (uri) WHERE uri IS NOT NULL;

CREATE TABLE conversation_mutes (
  account_id      INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  PRIMARY KEY (account_id, conversation_id)
) WITHOUT ROWID;

-- Direct-message conversations as a participant sees them (GET /api/v1/conversations).
CREATE TABLE account_conversations (
  id               INTEGER PRIMARY KEY,
  account_id       INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  conversation_id  INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  participant_ids  TEXT NOT NULL DEFAULT '[]',    -- JSON: other participants' account ids
  last_status_id   INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
  unread           INTEGER NOT NULL DEFAULT 0,
  UNIQUE (account_id, conversation_id)
);
CREATE INDEX account_conversations_list ON account_conversations (account_id, last_status_id);

CREATE TABLE follows (
  id                INTEGER PRIMARY KEY,          -- hidden cursor of followers/following
  account_id        INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  show_reblogs      INTEGER NOT NULL DEFAULT 1,
  notify            INTEGER NOT NULL DEFAULT 0,
  languages         TEXT,                         -- JSON array or NULL (all)
  uri               TEXT NOT NULL,                -- the Follow activity's id (shared with its request)
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  UNIQUE (account_id, target_account_id)
);
CREATE INDEX follows_target ON follows (target_account_id, id);
CREATE UNIQUE INDEX follows_uri ON follows (uri);

CREATE TABLE follow_requests (
  id                INTEGER PRIMARY KEY,
  account_id        INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  show_reblogs      INTEGER NOT NULL DEFAULT 1,
  notify            INTEGER NOT NULL DEFAULT 0,
  languages         TEXT,
  uri               TEXT NOT NULL,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  UNIQUE (account_id, target_account_id)
);
CREATE INDEX follow_requests_target ON follow_requests (target_account_id, id);
CREATE UNIQUE INDEX follow_requests_uri ON follow_requests (uri);

CREATE TABLE blocks (
  id                INTEGER PRIMARY KEY,
  account_id        INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  uri               TEXT NOT NULL,
  created_at        INTEGER NOT NULL,
  UNIQUE (account_id, target_account_id)
);
CREATE INDEX blocks_target ON blocks (target_account_id, account_id);

CREATE TABLE mutes (
  id                 INTEGER PRIMARY KEY,
  account_id         INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  target_account_id  INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  hide_notifications INTEGER NOT NULL DEFAULT 1,
  expires_at         INTEGER,                     -- NULL: indefinite
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL,
  UNIQUE (account_id, target_account_id)
);

CREATE TABLE account_domain_blocks (
  id         INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  domain     TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, domain)
);

CREATE TABLE account_notes (
  account_id        INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  comment           TEXT NOT NULL,
  updated_at        INTEGER NOT NULL,
  PRIMARY KEY (account_id, target_account_id)
) WITHOUT ROWID;

-- Endorsements ("account pins"): accounts featured on the owner's profile.
CREATE TABLE account_pins (
  id                INTEGER PRIMARY KEY,
  account_id        INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at        INTEGER NOT NULL,
  UNIQUE (account_id, target_account_id)
);

CREATE TABLE lists (
  id             INTEGER PRIMARY KEY,
  account_id     INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  title          TEXT NOT NULL,
  replies_policy TEXT NOT NULL DEFAULT 'list' CHECK (replies_policy IN ('followed', 'list', 'none')),
  exclusive      INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);
CREATE INDEX lists_account ON lists (account_id);

CREATE TABLE list_accounts (
  id         INTEGER PRIMARY KEY,
  list_id    INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  UNIQUE (list_id, account_id)
);
CREATE INDEX list_accounts_account ON list_accounts (account_id);

-- Materialised timelines: written by the status.fanout job, read by keyset pagination.
-- status_id is the timeline entry (a post or a boost).
CREATE TABLE home_feeds (
  account_id INTEGER NOT NULL,
  status_id  INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
  PRIMARY KEY (account_id, status_id)
) WITHOUT ROWID;
CREATE INDEX home_feeds_status ON home_feeds (status_id);

CREATE TABLE list_feeds (
  list_id   INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
  PRIMARY KEY (list_id, status_id)
) WITHOUT ROWID;
CREATE INDEX list_feeds_status ON list_feeds (status_id);

CREATE TABLE notifications (
  id              INTEGER PRIMARY KEY,
  account_id      INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, -- recipient
  from_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  type            TEXT NOT NULL,
  status_id       INTEGER REFERENCES statuses(id) ON DELETE CASCADE,
  created_at      INTEGER NOT NULL
);
CREATE INDEX notifications_account ON notifications (account_id, id);
CREATE INDEX notifications_from ON notifications (from_account_id);
CREATE INDEX notifications_status ON notifications (status_id) WHERE status_id IS NOT NULL;

CREATE TABLE markers (
  account_id   INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  timeline     TEXT NOT NULL CHECK (timeline IN ('home', 'notifications')),
  last_read_id TEXT NOT NULL,
  version      INTEGER NOT NULL DEFAULT 0,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (account_id, timeline)
) WITHOUT ROWID;

-- Idempotency-Key of POST /api/v1/statuses: the same key within an hour returns the same status.
CREATE TABLE idempotency_keys (
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key        TEXT NOT NULL,
  status_id  INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, key)
) WITHOUT ROWID;

CREATE INDEX statuses_conversation ON statuses (conversation_id) WHERE conversation_id IS NOT NULL;
CREATE INDEX statuses_public ON statuses (id) WHERE visibility = 'public' AND reblog_of_id IS NULL AND deleted_at IS NULL;
CREATE INDEX statuses_reblog_account ON statuses (account_id, reblog_of_id) WHERE reblog_of_id IS NOT NULL;
