-- The profile directory (src/storage/directory.ts): accounts that opted in, newest post first
-- (NULLs, never posted, sort last in descending order) or newest account first.
CREATE INDEX accounts_directory_active ON accounts (last_status_at DESC, id DESC)
  WHERE discoverable = 1 AND suspended_at IS NULL AND silenced_at IS NULL;
CREATE INDEX accounts_directory_new ON accounts (id DESC)
  WHERE discoverable = 1 AND suspended_at IS NULL AND silenced_at IS NULL;
