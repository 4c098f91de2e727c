-- Remote statuses (AP §4): what a remote post has that a local one does not.

-- A "limited" post: addressed to people it does not mention (AP §4.3). It is stored with the
-- access rules of a direct post (only the addressed see it) and shown as private.
ALTER TABLE statuses ADD COLUMN limited INTEGER NOT NULL DEFAULT 0;
-- The origin's own counts (`likes`/`shares` totalItems), untrusted: the API shows the larger
-- of these and ours, as Mastodon's StatusStat does.
ALTER TABLE statuses ADD COLUMN untrusted_favourites_count INTEGER;
ALTER TABLE statuses ADD COLUMN untrusted_reblogs_count INTEGER;

-- A remote attachment's own thumbnail (`icon`), like remote_url for the file.
ALTER TABLE media_attachments ADD COLUMN thumbnail_remote_url TEXT;
