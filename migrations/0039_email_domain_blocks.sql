-- E-mail domain blocks (issue 13, Mastodon's EmailDomainBlock): sign-ups with an address at the
-- domain or a subdomain are refused, or with allow_with_approval wait for a moderator.
CREATE TABLE email_domain_blocks (
  id                  INTEGER PRIMARY KEY,
  domain              TEXT NOT NULL UNIQUE,
  allow_with_approval INTEGER NOT NULL DEFAULT 0,
  created_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL
);

-- Sign-up attempts a block met (its `history`: uses, and distinct addresses as `accounts`).
CREATE TABLE email_domain_block_attempts (
  block_id   INTEGER NOT NULL REFERENCES email_domain_blocks(id) ON DELETE CASCADE,
  day        INTEGER NOT NULL,
  ip         TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX email_domain_block_attempts_block_day ON email_domain_block_attempts (block_id, day);
