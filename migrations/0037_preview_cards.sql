-- Preview cards (issue 10 part 8): one card per linked URL, shared by every status that links
-- it (Mastodon's preview_cards and preview_cards_statuses). A status has at most one card.
CREATE TABLE preview_cards (
  id                INTEGER PRIMARY KEY,
  url               TEXT NOT NULL UNIQUE,
  title             TEXT NOT NULL DEFAULT '',
  description       TEXT NOT NULL DEFAULT '',
  type              TEXT NOT NULL DEFAULT 'link' CHECK (type IN ('link', 'photo', 'video', 'rich')),
  author_name       TEXT NOT NULL DEFAULT '',
  author_url        TEXT NOT NULL DEFAULT '',
  provider_name     TEXT NOT NULL DEFAULT '',
  provider_url      TEXT NOT NULL DEFAULT '',
  html              TEXT NOT NULL DEFAULT '',   -- a sanitised iframe of an allowed provider, or ''
  embed_url         TEXT NOT NULL DEFAULT '',
  width             INTEGER NOT NULL DEFAULT 0,
  height            INTEGER NOT NULL DEFAULT 0,
  image_file        TEXT,                       -- stored name (media store), NULL: no image
  image_description TEXT NOT NULL DEFAULT '',
  blurhash          TEXT,
  language          TEXT,
  published_at      INTEGER,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
);

CREATE TABLE preview_cards_statuses (
  status_id       INTEGER PRIMARY KEY REFERENCES statuses (id) ON DELETE CASCADE,
  preview_card_id INTEGER NOT NULL REFERENCES preview_cards (id) ON DELETE CASCADE,
  url             TEXT NOT NULL                 -- the link as the status has it
);
CREATE INDEX preview_cards_statuses_card ON preview_cards_statuses (preview_card_id);
