-- Mastodon 4.5 split `invite_users`: whether an invite skips the approval queue is now the
-- inviter's `invite_bypass_approval` permission (Invite#bypass_approval?). As Mastodon's data
-- migration did, the named roles that could invite keep letting their invitees in; the everyone
-- role does not get it (Mastodon's default is invite_users alone), so an ordinary member's
-- invitee waits for approval when sign-ups need it.
UPDATE user_roles SET permissions = permissions | 2097152 WHERE id <> -99 AND (permissions & 65536) <> 0;
