-- Discovery (resolving remote accounts and statuses).

-- Who suspended an account: 'remote' when its own server said so (actor `suspended: true`,
-- AP §3.2), which a later fetch may lift; NULL for our own moderators' suspensions, which a
-- fetch never lifts (Mastodon's suspension_origin).
ALTER TABLE accounts ADD COLUMN suspension_origin TEXT CHECK (suspension_origin IN ('local', 'remote'));

-- Search and resolve look objects up by their web URL (`https://host/@bob/123`) as well as by uri.
CREATE INDEX statuses_url ON statuses (url) WHERE url IS NOT NULL;
CREATE INDEX accounts_url ON accounts (url) WHERE url IS NOT NULL;
