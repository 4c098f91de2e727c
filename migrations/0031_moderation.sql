-- Moderation (issue 13): account states set by moderators, reports' resolution, notes,
-- warnings ("strikes"), and the sign-in addresses the admin account filters search.

-- Media of a sensitized account is shown as sensitive to everyone else (Mastodon's sensitized_at).
ALTER TABLE accounts ADD COLUMN sensitized_at INTEGER;
CREATE INDEX accounts_suspended ON accounts (suspended_at) WHERE suspended_at IS NOT NULL;
CREATE INDEX accounts_silenced ON accounts (silenced_at) WHERE silenced_at IS NOT NULL;
CREATE INDEX accounts_sensitized ON accounts (sensitized_at) WHERE sensitized_at IS NOT NULL;

-- A suspension by our moderators schedules the account's data for deletion 30 days later
-- (Mastodon's AccountDeletionRequest); unsuspending cancels it, DELETE /api/v1/admin/accounts/:id
-- does it at once.
CREATE TABLE account_deletion_requests (
  account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL
);
CREATE INDEX account_deletion_requests_created ON account_deletion_requests (created_at);

-- Who invited the user (Admin::Account.invited_by_account_id, the `invited_by` filter); set by
-- sign-ups with an invite.
ALTER TABLE users ADD COLUMN invited_by_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL;
CREATE INDEX users_invited_by ON users (invited_by_account_id) WHERE invited_by_account_id IS NOT NULL;
CREATE INDEX users_pending ON users (account_id) WHERE approved = 0;

-- Addresses a user signed up or signed in from (Mastodon's user_ips), newest use kept.
-- `ip_key` is the address as 32 hex digits (IPv4 mapped into ::ffff:0:0/96), so a CIDR is a
-- range of keys (lib/ip-keys.ts).
CREATE TABLE user_ips (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  ip      TEXT NOT NULL,
  ip_key  TEXT NOT NULL,
  used_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, ip)
) WITHOUT ROWID;
CREATE INDEX user_ips_key ON user_ips (ip_key);

-- Who resolved a report (Admin::Report.action_taken_by_account).
ALTER TABLE reports ADD COLUMN action_taken_by_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL;
CREATE INDEX reports_unresolved ON reports (id) WHERE action_taken_at IS NULL;

-- Staff notes on a report (Mastodon's ReportNote).
CREATE TABLE report_notes (
  id         INTEGER PRIMARY KEY,
  report_id  INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  content    TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX report_notes_report ON report_notes (report_id, id);

-- Staff notes on an account (Mastodon's AccountModerationNote).
CREATE TABLE account_moderation_notes (
  id                INTEGER PRIMARY KEY,
  account_id        INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  content           TEXT NOT NULL,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
);
CREATE INDEX account_moderation_notes_target ON account_moderation_notes (target_account_id, id);

-- Texts a moderator can pick when acting on an account (Mastodon's AccountWarningPreset).
CREATE TABLE account_warning_presets (
  id         INTEGER PRIMARY KEY,
  title      TEXT NOT NULL DEFAULT '',
  text       TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- What a moderator did to an account and told its owner (Mastodon's AccountWarning, a "strike").
CREATE TABLE account_warnings (
  id                INTEGER PRIMARY KEY,
  account_id        INTEGER REFERENCES accounts(id) ON DELETE SET NULL,   -- the moderator
  target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  action            TEXT NOT NULL CHECK (action IN ('none', 'disable', 'mark_statuses_as_sensitive', 'delete_statuses', 'sensitive', 'silence', 'suspend')),
  text              TEXT NOT NULL DEFAULT '',
  report_id         INTEGER REFERENCES reports(id) ON DELETE SET NULL,
  status_ids        TEXT,                                                -- JSON array of ids, or NULL
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
);
CREATE INDEX account_warnings_target ON account_warnings (target_account_id, id);

-- moderation_warning notifications carry their warning.
ALTER TABLE notifications ADD COLUMN account_warning_id INTEGER REFERENCES account_warnings(id) ON DELETE CASCADE;
