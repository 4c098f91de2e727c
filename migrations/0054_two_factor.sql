-- Two-factor authentication (Mastodon's otp_secret / otp_required_for_login /
-- consumed_timestep / otp_backup_codes on users, and its half-finished sign-in kept in the
-- session). One row per user who has started setting up TOTP.
CREATE TABLE user_otp (
  user_id          INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  secret_box       TEXT NOT NULL,                 -- the base32 TOTP secret, sealed (lib/sealed-box.ts)
  enabled_at       INTEGER,                       -- null while the set-up awaits its first code
  last_step        INTEGER NOT NULL DEFAULT 0,    -- the newest 30 s time step used: a code works once
  failed_count     INTEGER NOT NULL DEFAULT 0,    -- wrong codes in the window starting at failed_since
  failed_since     INTEGER NOT NULL DEFAULT 0,
  created_at       INTEGER NOT NULL
) WITHOUT ROWID;

-- Single-use recovery codes: sha-256 of 80-bit random codes (see services/two-factor.ts).
CREATE TABLE user_recovery_codes (
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash  TEXT NOT NULL,
  used_at    INTEGER,
  PRIMARY KEY (user_id, code_hash)
) WITHOUT ROWID;

-- A sign-in whose password was right and whose code is still owed. The browser holds the
-- raw token in a cookie; no session exists until the code is right.
CREATE TABLE two_factor_challenges (
  token_hash  TEXT PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  user_agent  TEXT,
  ip          TEXT,
  expires_at  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX two_factor_challenges_user ON two_factor_challenges (user_id);
