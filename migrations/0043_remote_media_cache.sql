-- Local copies of remote media (issue 10 part 6): remote attachments, avatars and headers are
-- fetched by a job and their processed files stored like local ones; the entity's own columns
-- (media_attachments.file/small_file/thumbnail_file, accounts.avatar_file/header_file) point at
-- the copy, and remote_url keeps the origin. One row per copy says which files it made and how
-- many bytes they hold, so the cache can be kept within its budget (remoteMediaCacheBytes) and
-- pruned: removing a copy clears the entity's columns, which then show remote_url again.
CREATE TABLE remote_media_cache (
  kind        TEXT NOT NULL CHECK (kind IN ('attachment', 'avatar', 'header')),
  owner_id    INTEGER NOT NULL,         -- media_attachments.id or accounts.id
  source_url  TEXT NOT NULL,            -- the remote URL the copy was made from
  files       TEXT NOT NULL,            -- JSON array of stored names
  bytes       INTEGER NOT NULL,
  cached_at   INTEGER NOT NULL,
  PRIMARY KEY (kind, owner_id)
) WITHOUT ROWID;

-- Eviction takes the oldest copies first.
CREATE INDEX remote_media_cache_age ON remote_media_cache (cached_at);
