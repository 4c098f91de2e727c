-- Announcements by the instance's staff (Mastodon's Announcement, AnnouncementMute and
-- AnnouncementReaction; GET /api/v1/announcements). `text` is what the admin wrote; `content`
-- its HTML and `mention_ids` the accounts it links, rendered when the text is saved.
CREATE TABLE announcements (
  id            INTEGER PRIMARY KEY,
  text          TEXT NOT NULL,
  content       TEXT NOT NULL,
  mention_ids   TEXT NOT NULL DEFAULT '[]',   -- JSON array of account ids (decimal strings)
  published     INTEGER NOT NULL DEFAULT 0,
  all_day       INTEGER NOT NULL DEFAULT 0,
  scheduled_at  INTEGER,                      -- publication planned (unpublished until then)
  starts_at     INTEGER,                      -- the event it announces; both or neither
  ends_at       INTEGER,                      -- also when it is unpublished
  published_at  INTEGER,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);

-- "Dismissed" (read) per account.
CREATE TABLE announcement_mutes (
  account_id      INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  announcement_id INTEGER NOT NULL REFERENCES announcements(id) ON DELETE CASCADE,
  created_at      INTEGER NOT NULL,
  PRIMARY KEY (account_id, announcement_id)
) WITHOUT ROWID;

CREATE INDEX announcement_mutes_announcement ON announcement_mutes (announcement_id);

-- One row per account and emoji: `name` is a unicode emoji or a local custom emoji's shortcode.
CREATE TABLE announcement_reactions (
  id              INTEGER PRIMARY KEY,
  announcement_id INTEGER NOT NULL REFERENCES announcements(id) ON DELETE CASCADE,
  account_id      INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name            TEXT NOT NULL,
  created_at      INTEGER NOT NULL,
  UNIQUE (announcement_id, name, account_id)
);

CREATE INDEX announcement_reactions_account ON announcement_reactions (account_id);
