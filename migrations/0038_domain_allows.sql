-- Federation allow-list (issue 13, Mastodon's DomainAllow): consulted only when the config's
-- `limitedFederation` is on, when every domain without an allow (on itself or a parent
-- domain) is treated as suspended.
CREATE TABLE domain_allows (
  id         INTEGER PRIMARY KEY,
  domain     TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
