-- Web Push subscriptions (Mastodon's web_push_subscriptions): one per access token, made by
-- POST /api/v1/push/subscription or, for a browser session, /api/web/push_subscriptions with
-- the session's token. Revoking the token deletes them (services/oauth-token.ts); deleting it
-- (the OAuth clean-up) cascades here.
CREATE TABLE web_push_subscriptions (
  id          INTEGER PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_id    INTEGER NOT NULL UNIQUE REFERENCES oauth_tokens(id) ON DELETE CASCADE,
  endpoint    TEXT NOT NULL,
  key_p256dh  TEXT NOT NULL,                       -- base64url, as the client sent it
  key_auth    TEXT NOT NULL,
  standard    INTEGER NOT NULL DEFAULT 0,          -- 1: RFC 8291 aes128gcm; 0: legacy aesgcm
  alerts      TEXT NOT NULL DEFAULT '{}',          -- JSON: notification type → boolean, the types sent
  policy      TEXT NOT NULL DEFAULT 'all' CHECK (policy IN ('all', 'followed', 'follower', 'none')),
  -- The access token itself (the push payload's access_token), sealed with a key derived from
  -- config.secret: the database alone never reveals it. lib/sealed-box.ts.
  token_box   TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE INDEX web_push_subscriptions_user ON web_push_subscriptions (user_id);

-- A browser session's token, sealed the same way, so that the session can subscribe to Web
-- Push with it (/api/web/push_subscriptions). NULL for sessions opened before this migration.
ALTER TABLE web_sessions ADD COLUMN token_box TEXT;
