-- External sign-in (issue 16 part 4; Mastodon's `identities` table): which local user an
-- identity of a provider (cas, saml, openid_connect, pam) signs in as.
CREATE TABLE identities (
  id          INTEGER PRIMARY KEY,
  provider    TEXT NOT NULL,
  uid         TEXT NOT NULL,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at  INTEGER NOT NULL,
  UNIQUE (provider, uid)
);
CREATE INDEX identities_user ON identities(user_id);

-- Single-use proofs from providers (CAS service tickets, SAML assertion ids), kept hashed until
-- they could no longer be accepted anyway, so a replayed one is refused.
CREATE TABLE used_auth_proofs (
  provider    TEXT NOT NULL,
  proof_hash  TEXT NOT NULL,
  expires_at  INTEGER NOT NULL,
  PRIMARY KEY (provider, proof_hash)
) WITHOUT ROWID;
