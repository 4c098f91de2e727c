-- Foundation schema. Times are UTC milliseconds; ids are 64-bit time-ordered integers
-- (src/lib/ids.ts). Accounts and statuses are federation-ready: a row is local when its
-- domain is NULL, remote otherwise, and both kinds go through the same services.

CREATE TABLE accounts (
  id                  INTEGER PRIMARY KEY,
  username            TEXT NOT NULL,
  domain              TEXT,                       -- NULL: local account
  display_name        TEXT NOT NULL DEFAULT '',
  note                TEXT NOT NULL DEFAULT '',   -- rendered HTML (sanitised for remote)
  note_source         TEXT NOT NULL DEFAULT '',   -- plain text as typed (local only)
  fields              TEXT NOT NULL DEFAULT '[]', -- JSON [{name, value, verified_at}]
  actor_type          TEXT NOT NULL DEFAULT 'Person', -- Person | Service | Group | Application | Organization
  locked              INTEGER NOT NULL DEFAULT 0,
  discoverable        INTEGER,                    -- NULL: not set
  indexable           INTEGER NOT NULL DEFAULT 0,
  hide_collections    INTEGER NOT NULL DEFAULT 0,
  memorial            INTEGER NOT NULL DEFAULT 0,
  moved_to_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL,
  also_known_as       TEXT NOT NULL DEFAULT '[]', -- JSON array of actor URIs
  uri                 TEXT NOT NULL,              -- ActivityPub actor id
  url                 TEXT,                       -- human profile page
  inbox_url           TEXT,
  shared_inbox_url    TEXT,
  outbox_url          TEXT,
  followers_url       TEXT,
  following_url       TEXT,
  featured_url        TEXT,
  featured_tags_url   TEXT,
  public_key_pem      TEXT,
  private_key_pem     TEXT,                       -- local accounts only
  public_key_id       TEXT,
  avatar_file         TEXT,                       -- path under media/, local copy
  avatar_content_type TEXT,
  avatar_remote_url   TEXT,
  header_file         TEXT,
  header_content_type TEXT,
  header_remote_url   TEXT,
  suspended_at        INTEGER,
  silenced_at         INTEGER,
  followers_count     INTEGER NOT NULL DEFAULT 0,
  following_count     INTEGER NOT NULL DEFAULT 0,
  statuses_count      INTEGER NOT NULL DEFAULT 0,
  last_status_at      INTEGER,
  last_webfingered_at INTEGER,                    -- remote: last refresh
  created_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL
);
CREATE UNIQUE INDEX accounts_handle ON accounts (lower(username), coalesce(lower(domain), ''));
CREATE UNIQUE INDEX accounts_uri ON accounts (uri);
CREATE INDEX accounts_domain ON accounts (domain) WHERE domain IS NOT NULL;

CREATE TABLE users (
  id                 INTEGER PRIMARY KEY,
  account_id         INTEGER NOT NULL UNIQUE REFERENCES accounts(id) ON DELETE CASCADE,
  email              TEXT NOT NULL COLLATE NOCASE,
  password_hash      TEXT,                        -- scrypt$N$r$p$salt$hash
  role               TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'moderator', 'admin')),
  confirmed_at       INTEGER,
  approved           INTEGER NOT NULL DEFAULT 1,
  disabled           INTEGER NOT NULL DEFAULT 0,
  locale             TEXT,
  reason             TEXT,                        -- registration reason (approval mode)
  default_privacy    TEXT NOT NULL DEFAULT 'public' CHECK (default_privacy IN ('public', 'unlisted', 'private', 'direct')),
  default_sensitive  INTEGER NOT NULL DEFAULT 0,
  default_language   TEXT,
  settings           TEXT NOT NULL DEFAULT '{}',  -- JSON: reading:expand:media etc.
  sign_up_ip         TEXT,
  created_by_app_id  INTEGER,                     -- app that registered the user
  current_sign_in_at INTEGER,
  last_sign_in_at    INTEGER,
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email);

-- One row per user per UTC day on which the user made an authenticated request; feeds
-- NodeInfo's activeMonth/activeHalfyear and the weekly `logins` of /api/v1/instance/activity.
CREATE TABLE user_activity_days (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  day     INTEGER NOT NULL,                       -- UTC midnight, ms
  PRIMARY KEY (user_id, day)
) WITHOUT ROWID;
CREATE INDEX user_activity_days_day ON user_activity_days (day);

CREATE TABLE oauth_applications (
  id                 INTEGER PRIMARY KEY,
  name               TEXT NOT NULL,
  website            TEXT,
  redirect_uris      TEXT NOT NULL,               -- newline-joined, as Mastodon stores them
  scopes             TEXT NOT NULL,               -- space-joined
  client_id          TEXT NOT NULL UNIQUE,
  client_secret_hash TEXT NOT NULL,               -- sha256 hex; the secret is shown once
  superapp           INTEGER NOT NULL DEFAULT 0,
  owner_user_id      INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at         INTEGER NOT NULL
);

CREATE TABLE oauth_grants (
  id                    INTEGER PRIMARY KEY,
  application_id        INTEGER NOT NULL REFERENCES oauth_applications(id) ON DELETE CASCADE,
  user_id               INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash             TEXT NOT NULL UNIQUE,     -- sha256 hex of the code
  redirect_uri          TEXT NOT NULL,
  scopes                TEXT NOT NULL,
  code_challenge        TEXT,
  code_challenge_method TEXT,
  expires_at            INTEGER NOT NULL,
  revoked_at            INTEGER,
  created_at            INTEGER NOT NULL
);
CREATE INDEX oauth_grants_expires ON oauth_grants (expires_at);

CREATE TABLE oauth_tokens (
  id             INTEGER PRIMARY KEY,
  application_id INTEGER REFERENCES oauth_applications(id) ON DELETE CASCADE,
  user_id        INTEGER REFERENCES users(id) ON DELETE CASCADE, -- NULL: app token
  token_hash     TEXT NOT NULL UNIQUE,            -- sha256 hex; tokens are never stored
  scopes         TEXT NOT NULL,
  expires_at     INTEGER,                         -- NULL: never (Mastodon's tokens do not expire)
  revoked_at     INTEGER,
  last_used_at   INTEGER,
  last_used_ip   TEXT,
  created_at     INTEGER NOT NULL
);
CREATE INDEX oauth_tokens_user_app ON oauth_tokens (user_id, application_id);
CREATE INDEX oauth_tokens_revoked ON oauth_tokens (revoked_at) WHERE revoked_at IS NOT NULL;
CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at) WHERE expires_at IS NOT NULL;

-- Browser login sessions. Each is bound to one access token of the built-in web app:
-- logging out revokes the token, and a revoked token ends the session.
CREATE TABLE web_sessions (
  id           INTEGER PRIMARY KEY,
  session_hash TEXT NOT NULL UNIQUE,              -- sha256 hex of the cookie value
  user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_id     INTEGER NOT NULL REFERENCES oauth_tokens(id) ON DELETE CASCADE,
  user_agent   TEXT,
  ip           TEXT,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);
CREATE INDEX web_sessions_user ON web_sessions (user_id, created_at);

CREATE TABLE statuses (
  id                     INTEGER PRIMARY KEY,
  account_id             INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  local                  INTEGER NOT NULL DEFAULT 1,
  uri                    TEXT NOT NULL,           -- stored when saved, never recomputed
  url                    TEXT,
  text                   TEXT NOT NULL DEFAULT '', -- source text (local) or '' (remote)
  content                TEXT NOT NULL DEFAULT '', -- rendered/sanitised HTML
  spoiler_text           TEXT NOT NULL DEFAULT '',
  sensitive              INTEGER NOT NULL DEFAULT 0,
  visibility             TEXT NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'unlisted', 'private', 'direct')),
  language               TEXT,
  in_reply_to_id         INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
  in_reply_to_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL,
  in_reply_to_uri        TEXT,
  reblog_of_id           INTEGER REFERENCES statuses(id) ON DELETE CASCADE,
  conversation_id        INTEGER,
  application_id         INTEGER REFERENCES oauth_applications(id) ON DELETE SET NULL,
  replies_count          INTEGER NOT NULL DEFAULT 0,
  reblogs_count          INTEGER NOT NULL DEFAULT 0,
  favourites_count       INTEGER NOT NULL DEFAULT 0,
  edited_at              INTEGER,
  deleted_at             INTEGER,
  created_at             INTEGER NOT NULL,
  updated_at             INTEGER NOT NULL
);
CREATE UNIQUE INDEX statuses_uri ON statuses (uri);
CREATE INDEX statuses_account ON statuses (account_id, id);
CREATE INDEX statuses_reply ON statuses (in_reply_to_id) WHERE in_reply_to_id IS NOT NULL;
CREATE INDEX statuses_reblog ON statuses (reblog_of_id) WHERE reblog_of_id IS NOT NULL;
CREATE INDEX statuses_local_public ON statuses (id) WHERE local = 1 AND visibility = 'public' AND reblog_of_id IS NULL AND deleted_at IS NULL;

CREATE TABLE media_attachments (
  id             INTEGER PRIMARY KEY,
  account_id     INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  status_id      INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
  type           TEXT NOT NULL CHECK (type IN ('image', 'gifv', 'video', 'audio', 'unknown')),
  file           TEXT,                            -- path under media/
  content_type   TEXT,
  file_size      INTEGER,
  thumbnail_file TEXT,
  remote_url     TEXT,
  description    TEXT,
  blurhash       TEXT,
  meta           TEXT NOT NULL DEFAULT '{}',      -- JSON: original/small sizes, focus
  processing     INTEGER NOT NULL DEFAULT 0,      -- 1 while the worker pool is still on it
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);
CREATE INDEX media_attachments_status ON media_attachments (status_id) WHERE status_id IS NOT NULL;
CREATE INDEX media_attachments_account ON media_attachments (account_id, id);

CREATE TABLE custom_emojis (
  id                INTEGER PRIMARY KEY,
  shortcode         TEXT NOT NULL,
  domain            TEXT,                         -- NULL: local
  uri               TEXT,
  file              TEXT,                         -- path under media/ (local copy)
  content_type      TEXT,
  remote_url        TEXT,
  category          TEXT,
  visible_in_picker INTEGER NOT NULL DEFAULT 1,   -- 0: unlisted
  disabled          INTEGER NOT NULL DEFAULT 0,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
);
CREATE UNIQUE INDEX custom_emojis_shortcode ON custom_emojis (shortcode, coalesce(domain, ''));

CREATE TABLE rules (
  id         INTEGER PRIMARY KEY,
  text       TEXT NOT NULL,
  hint       TEXT NOT NULL DEFAULT '',
  position   INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);

-- Instance-level (admin) domain blocks; shown by /api/v1/instance/domain_blocks.
CREATE TABLE domain_blocks (
  id              INTEGER PRIMARY KEY,
  domain          TEXT NOT NULL UNIQUE,
  severity        TEXT NOT NULL DEFAULT 'silence' CHECK (severity IN ('noop', 'silence', 'suspend')),
  reject_media    INTEGER NOT NULL DEFAULT 0,
  reject_reports  INTEGER NOT NULL DEFAULT 0,
  public_comment  TEXT,
  private_comment TEXT,
  obfuscate       INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);

-- Runtime-editable instance settings (extended description, ...), key → JSON value.
CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

-- Persisted background jobs. The runner claims a row with UPDATE ... RETURNING by setting
-- locked_until; a crashed runner's claim expires and the job runs again.
CREATE TABLE jobs (
  id           INTEGER PRIMARY KEY,
  queue        TEXT NOT NULL DEFAULT 'default',
  name         TEXT NOT NULL,
  payload      TEXT NOT NULL DEFAULT '{}',
  run_at       INTEGER NOT NULL,
  attempts     INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 10,
  locked_until INTEGER,
  last_error   TEXT,
  created_at   INTEGER NOT NULL
);
CREATE INDEX jobs_due ON jobs (queue, run_at);

-- Jobs that exhausted their attempts or failed permanently, kept for the operator.
CREATE TABLE dead_jobs (
  id         INTEGER PRIMARY KEY,
  queue      TEXT NOT NULL,
  name       TEXT NOT NULL,
  payload    TEXT NOT NULL,
  attempts   INTEGER NOT NULL,
  last_error TEXT,
  failed_at  INTEGER NOT NULL
);

CREATE TABLE periodic_tasks (
  name        TEXT PRIMARY KEY,
  last_run_at INTEGER,
  next_run_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Keys of the instance actor and other server-wide secrets that live with the data.
CREATE TABLE instance_keys (
  name            TEXT PRIMARY KEY,
  public_key_pem  TEXT NOT NULL,
  private_key_pem TEXT NOT NULL,
  created_at      INTEGER NOT NULL
) WITHOUT ROWID;
