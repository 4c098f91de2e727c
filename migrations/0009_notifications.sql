-- Notifications: grouping keys, and notifications that live and die with their activity.

-- Mastodon 4.3 stores a group key for groupable types (favourite, follow, reblog,
-- admin.sign_up): "<type>[-<status_id>]-<hour bucket>", reused for 12 hours. Others stay NULL
-- and are shown as "ungrouped-<id>". The index finds a recipient's latest key of a prefix.
ALTER TABLE notifications ADD COLUMN group_key TEXT;
CREATE INDEX notifications_group ON notifications (account_id, group_key) WHERE group_key IS NOT NULL;

-- In Mastodon a notification belongs to its activity (`has_one :notification, dependent:
-- :destroy` on Favourite, Follow, FollowRequest, Mention and the boost Status): undoing the
-- action removes the notification, so favourite → unfavourite → favourite leaves one, and
-- an authorized or rejected follow request no longer shows. Triggers keep that rule in one
-- place whichever service deletes the row (they also fire for ON DELETE CASCADE).
CREATE TRIGGER favourites_drop_notification AFTER DELETE ON favourites BEGIN
  DELETE FROM notifications
   WHERE status_id = old.status_id AND from_account_id = old.account_id AND type = 'favourite';
END;

CREATE TRIGGER follows_drop_notification AFTER DELETE ON follows BEGIN
  DELETE FROM notifications
   WHERE from_account_id = old.account_id AND account_id = old.target_account_id AND type = 'follow';
END;

CREATE TRIGGER follow_requests_drop_notification AFTER DELETE ON follow_requests BEGIN
  DELETE FROM notifications
   WHERE from_account_id = old.account_id AND account_id = old.target_account_id AND type = 'follow_request';
END;

CREATE TRIGGER mentions_drop_notification AFTER DELETE ON mentions BEGIN
  DELETE FROM notifications
   WHERE status_id = old.status_id AND account_id = old.account_id AND type = 'mention';
END;

-- A reblog notification points at the original status (what the entity shows), so removing
-- the boost has to find it by the booster.
CREATE TRIGGER reblogs_drop_notification AFTER DELETE ON statuses WHEN old.reblog_of_id IS NOT NULL BEGIN
  DELETE FROM notifications
   WHERE status_id = old.reblog_of_id AND from_account_id = old.account_id AND type = 'reblog';
END;

-- Blocking an account or a domain deletes what it already sent the blocker (Mastodon's
-- AfterBlockService and AfterBlockDomainFromAccountService#clear_notifications!), so
-- unblocking later does not bring them back.
CREATE TRIGGER blocks_clear_notifications AFTER INSERT ON blocks BEGIN
  DELETE FROM notifications WHERE account_id = new.account_id AND from_account_id = new.target_account_id;
END;

CREATE TRIGGER account_domain_blocks_clear_notifications AFTER INSERT ON account_domain_blocks BEGIN
  DELETE FROM notifications
   WHERE account_id = new.account_id
     AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = notifications.from_account_id AND lower(a.domain) = lower(new.domain));
END;
