-- Invites (Mastodon's Invite): a code that lets people sign up, limited in uses and time.
-- Expiring one (delete) sets expires_at to now and keeps the row, as Mastodon's expire! does.
CREATE TABLE invites (
  id          INTEGER PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code        TEXT NOT NULL UNIQUE,
  expires_at  INTEGER,                     -- NULL: never
  max_uses    INTEGER CHECK (max_uses IS NULL OR max_uses > 0),  -- NULL: unlimited
  uses        INTEGER NOT NULL DEFAULT 0,
  autofollow  INTEGER NOT NULL DEFAULT 0,  -- the invitee follows the inviter
  comment     TEXT,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE INDEX invites_user ON invites (user_id, id);

-- The invite a user signed up with (users.invited_by_account_id, 0031, names the inviter).
ALTER TABLE users ADD COLUMN invite_id INTEGER REFERENCES invites(id) ON DELETE SET NULL;

-- Devise's confirmable and recoverable: one live token of each kind per user, stored hashed
-- (sha256), replaced when a new one is sent and cleared once used.
ALTER TABLE users ADD COLUMN confirmation_token_hash TEXT;
ALTER TABLE users ADD COLUMN confirmation_sent_at INTEGER;
ALTER TABLE users ADD COLUMN reset_password_token_hash TEXT;
ALTER TABLE users ADD COLUMN reset_password_sent_at INTEGER;
CREATE UNIQUE INDEX users_confirmation_token ON users (confirmation_token_hash) WHERE confirmation_token_hash IS NOT NULL;
CREATE UNIQUE INDEX users_reset_password_token ON users (reset_password_token_hash) WHERE reset_password_token_hash IS NOT NULL;
