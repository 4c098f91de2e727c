-- An e-mail change waits here until the new address is confirmed (Devise's reconfirmable, as
-- Mastodon uses it: users.unconfirmed_email); the confirmation link is the usual one.
ALTER TABLE users ADD COLUMN unconfirmed_email TEXT;
