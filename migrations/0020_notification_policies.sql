-- Mastodon 4.3's notification policy and notification requests.
--
-- Each recipient may keep a policy: for five kinds of sender (not followed, not a follower,
-- a new account, an unsolicited private mention, a moderator-limited account) it accepts,
-- filters or drops their notifications. Without a row the defaults apply (Mastodon's:
-- private mentions and limited accounts filtered, everything else accepted).
CREATE TABLE notification_policies (
  account_id           INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  for_not_following    TEXT NOT NULL DEFAULT 'accept' CHECK (for_not_following IN ('accept', 'filter', 'drop')),
  for_not_followers    TEXT NOT NULL DEFAULT 'accept' CHECK (for_not_followers IN ('accept', 'filter', 'drop')),
  for_new_accounts     TEXT NOT NULL DEFAULT 'accept' CHECK (for_new_accounts IN ('accept', 'filter', 'drop')),
  for_private_mentions TEXT NOT NULL DEFAULT 'filter' CHECK (for_private_mentions IN ('accept', 'filter', 'drop')),
  for_limited_accounts TEXT NOT NULL DEFAULT 'filter' CHECK (for_limited_accounts IN ('accept', 'filter', 'drop')),
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL
);

-- A filtered notification is kept but hidden from the lists (unless asked for) and never
-- grouped (its group_key stays NULL, as in Mastodon).
ALTER TABLE notifications ADD COLUMN filtered INTEGER NOT NULL DEFAULT 0;
CREATE INDEX notifications_filtered ON notifications (account_id, from_account_id) WHERE filtered = 1;

-- One request per (recipient, sender) holding filtered mentions (Mastodon makes requests for
-- mentions only); its count is read live from the filtered mentions.
CREATE TABLE notification_requests (
  id              INTEGER PRIMARY KEY,
  account_id      INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  from_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  last_status_id  INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  UNIQUE (account_id, from_account_id)
);
CREATE INDEX notification_requests_account ON notification_requests (account_id, id);

-- An accepted request lets that sender's notifications through every policy from then on.
CREATE TABLE notification_permissions (
  account_id      INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  from_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at      INTEGER NOT NULL,
  PRIMARY KEY (account_id, from_account_id)
) WITHOUT ROWID;

-- Mastodon's Notification#remove_from_notification_request: a request whose last filtered
-- mention goes (deleted status, block, dismissal) goes with it, whoever deleted the row.
CREATE TRIGGER notifications_reconsider_request AFTER DELETE ON notifications
  WHEN old.filtered = 1 AND old.type = 'mention'
BEGIN
  DELETE FROM notification_requests
   WHERE account_id = old.account_id AND from_account_id = old.from_account_id
     AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.account_id = old.account_id
                     AND n.from_account_id = old.from_account_id AND n.filtered = 1 AND n.type = 'mention');
END;
