-- What GET/PATCH /api/v1/profile (Mastodon 4.6) edits besides the columns the Account entity
-- shows: image descriptions, the profile tabs' settings and the domains allowed to credit the
-- account (`attributionDomains` of the actor). Local accounts only; remote rows keep defaults.
ALTER TABLE accounts ADD COLUMN avatar_description TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN header_description TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN show_media INTEGER NOT NULL DEFAULT 1;
ALTER TABLE accounts ADD COLUMN show_media_replies INTEGER NOT NULL DEFAULT 1;
ALTER TABLE accounts ADD COLUMN show_featured INTEGER NOT NULL DEFAULT 1;
ALTER TABLE accounts ADD COLUMN attribution_domains TEXT NOT NULL DEFAULT '[]'; -- JSON array
