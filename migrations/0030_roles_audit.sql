-- Administration (issue 13): Mastodon's role model and the audit log.

-- Roles (Mastodon's UserRole): a permission bitmask (src/lib/permissions.ts) and a position;
-- nobody acts on a user whose role is at or above their own. The "everyone" role has the
-- fixed id -99 (users with role_id NULL hold it) and only invite_users; the built-in ones are
-- Mastodon's config/roles.yml, with the ids a fresh Mastodon gives them.
CREATE TABLE user_roles (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL DEFAULT '',
  color       TEXT NOT NULL DEFAULT '',
  position    INTEGER NOT NULL DEFAULT 0,
  permissions INTEGER NOT NULL DEFAULT 0,
  highlighted INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
INSERT INTO user_roles (id, name, position, permissions, highlighted, created_at, updated_at) VALUES
  (-99, '', -1, 65536, 0, 0, 0),
  -- invite_users view_dashboard view_audit_log view_feeds manage_users manage_reports manage_taxonomies
  (1, 'Moderator', 10, 1115420, 1, 0, 0),
  -- the moderator's plus manage_user_access delete_user_data manage_federation manage_settings
  -- manage_blocks manage_appeals manage_rules manage_invites manage_announcements
  -- manage_custom_emojis manage_webhooks manage_roles
  (2, 'Admin', 100, 2097148, 1, 0, 0),
  (3, 'Owner', 1000, 1, 1, 0, 0);

-- users.role (user|moderator|admin) becomes a reference. roost's old `admin` carried every
-- permission, as Mastodon's Owner does, so that is what existing admins keep.
ALTER TABLE users ADD COLUMN role_id INTEGER REFERENCES user_roles(id) ON DELETE SET NULL;
UPDATE users SET role_id = CASE role WHEN 'moderator' THEN 1 WHEN 'admin' THEN 3 END;
ALTER TABLE users DROP COLUMN role;
CREATE INDEX users_role ON users (role_id) WHERE role_id IS NOT NULL;

-- The audit log (Mastodon's Admin::ActionLog): who did what to which record, and the fields
-- it changed ({"field": [before, after]}). Written by admin/audit.ts in the transaction of the
-- action. Actors and targets are named as they were (they may be deleted later), so the
-- table has no foreign keys, and it is append-only: triggers refuse UPDATE and DELETE.
CREATE TABLE admin_action_logs (
  id               INTEGER PRIMARY KEY,
  account_id       INTEGER,                     -- the actor; NULL: the server itself (a job)
  actor_name       TEXT NOT NULL,               -- username at the time, or 'system'
  source           TEXT NOT NULL CHECK (source IN ('api', 'cli', 'job')),
  action           TEXT NOT NULL,               -- Mastodon's: suspend, resolve, change_role, create ...
  target_type      TEXT NOT NULL,               -- Account, User, Report, UserRole, AccountWarning ...
  target_id        TEXT,
  human_identifier TEXT,                        -- e.g. the target's handle or a role's name
  changes          TEXT NOT NULL DEFAULT '{}',
  created_at       INTEGER NOT NULL
);
CREATE INDEX admin_action_logs_account ON admin_action_logs (account_id, id);
CREATE INDEX admin_action_logs_target ON admin_action_logs (target_type, target_id, id);
CREATE TRIGGER admin_action_logs_no_update BEFORE UPDATE ON admin_action_logs BEGIN
  SELECT RAISE(ABORT, 'the audit log is append-only');
END;
CREATE TRIGGER admin_action_logs_no_delete BEFORE DELETE ON admin_action_logs BEGIN
  SELECT RAISE(ABORT, 'the audit log is append-only');
END;
