-- Issue 13 part 2: canonical e-mail blocks, IP blocks and the moderation flags of hashtags.

-- Mastodon's CanonicalEmailBlock: the SHA-256 hex of the canonical address (lower-cased, dots
-- and a +tag dropped from the local part), so the address itself is never kept.
CREATE TABLE canonical_email_blocks (
  id                   INTEGER PRIMARY KEY,
  canonical_email_hash TEXT NOT NULL UNIQUE,
  reference_account_id INTEGER,
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL
);

-- Mastodon's IpBlock: an address range (`ip` is the CIDR with host bits cleared; first/last
-- are lib/ip-keys.ts keys) and what it does: sign-ups held for approval, sign-ups refused, or
-- every request refused. Past `expires_at` a block no longer applies and is purged.
CREATE TABLE ip_blocks (
  id         INTEGER PRIMARY KEY,
  ip         TEXT NOT NULL UNIQUE,
  first_key  TEXT NOT NULL,
  last_key   TEXT NOT NULL,
  severity   TEXT NOT NULL CHECK (severity IN ('sign_up_requires_approval', 'sign_up_block', 'no_access')),
  comment    TEXT NOT NULL DEFAULT '',
  expires_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- Mastodon's Tag#usable / #listable (NULL: never decided, which counts as yes); `trendable`
-- is the tag's trend_reviews row. reviewed_at: when a moderator last changed the tag.
ALTER TABLE tags ADD COLUMN usable INTEGER;
ALTER TABLE tags ADD COLUMN listable INTEGER;
ALTER TABLE tags ADD COLUMN reviewed_at INTEGER;
