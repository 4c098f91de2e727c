-- Followed hashtags, featured hashtags and the daily use counts of a tag's `history`
-- (Mastodon's TagFollow, FeaturedTag and Trends::History).

-- A local account following a hashtag: its public posts land in the follower's home.
-- `id` is the hidden cursor of GET /api/v1/followed_tags.
CREATE TABLE tag_follows (
  id         INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  tag_id     INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, tag_id)
);
CREATE INDEX tag_follows_tag ON tag_follows (tag_id);

-- A hashtag shown on a profile (local, or a remote actor's `featuredTags`). `name` is the
-- spelling the owner chose; `statuses_count` / `last_status_at` count the owner's public and
-- unlisted posts with the tag (Mastodon's counter cache), kept by the triggers below.
CREATE TABLE featured_tags (
  id             INTEGER PRIMARY KEY,
  account_id     INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  tag_id         INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  name           TEXT NOT NULL,
  statuses_count INTEGER NOT NULL DEFAULT 0,
  last_status_at INTEGER,
  url            TEXT,                            -- remote: the Hashtag's href
  created_at     INTEGER NOT NULL,
  UNIQUE (account_id, tag_id)
);
CREATE INDEX featured_tags_tag ON featured_tags (tag_id);

-- A tag's uses per UTC day (`day` = midnight in ms) and the distinct accounts behind them:
-- what Mastodon keeps in Redis for Tag#history. Counted when a public post (not a boost, not
-- by a silenced account) is linked to the tag, as Trends::Tags#register counts; like Mastodon's
-- counters they are not taken back when the post is deleted. Rows older than the history's
-- seven days are trimmed by a periodic task.
CREATE TABLE tag_days (
  tag_id   INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  day      INTEGER NOT NULL,
  uses     INTEGER NOT NULL DEFAULT 0,
  accounts INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (tag_id, day)
) WITHOUT ROWID;
CREATE TABLE tag_day_accounts (
  tag_id     INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  day        INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  PRIMARY KEY (tag_id, day, account_id)
) WITHOUT ROWID;
CREATE INDEX tag_days_day ON tag_days (day);
CREATE INDEX tag_day_accounts_day ON tag_day_accounts (day);

-- Triggers on statuses_tags, so every way a post gets or loses a tag (local and remote posts,
-- edits, deletions, account purges) keeps the counters right without each path remembering.
-- changes() inside a trigger is the row count of the trigger's previous statement: 1 when the
-- account is new for that tag and day.
CREATE TRIGGER statuses_tags_count_use AFTER INSERT ON statuses_tags
  WHEN (SELECT s.visibility = 'public' AND s.reblog_of_id IS NULL AND a.silenced_at IS NULL
        FROM statuses s JOIN accounts a ON a.id = s.account_id WHERE s.id = new.status_id)
BEGIN
  INSERT OR IGNORE INTO tag_day_accounts (tag_id, day, account_id)
    SELECT new.tag_id, created_at - created_at % 86400000, account_id FROM statuses WHERE id = new.status_id;
  INSERT INTO tag_days (tag_id, day, uses, accounts)
    SELECT new.tag_id, created_at - created_at % 86400000, 1, changes() FROM statuses WHERE id = new.status_id
    ON CONFLICT (tag_id, day) DO UPDATE SET uses = uses + 1, accounts = accounts + excluded.accounts;
END;

CREATE TRIGGER statuses_tags_featured_add AFTER INSERT ON statuses_tags
  WHEN EXISTS (SELECT 1 FROM featured_tags WHERE tag_id = new.tag_id)
BEGIN
  UPDATE featured_tags SET
      statuses_count = statuses_count + 1,
      last_status_at = max(coalesce(last_status_at, 0), (SELECT created_at FROM statuses WHERE id = new.status_id))
    WHERE tag_id = new.tag_id AND account_id = (
      SELECT account_id FROM statuses WHERE id = new.status_id
        AND visibility IN ('public', 'unlisted') AND reblog_of_id IS NULL AND deleted_at IS NULL);
END;

-- The latest use is looked up again only when the post removed was the latest one
-- (Mastodon's FeaturedTag#decrement).
CREATE TRIGGER statuses_tags_featured_remove AFTER DELETE ON statuses_tags
  WHEN EXISTS (SELECT 1 FROM featured_tags WHERE tag_id = old.tag_id)
BEGIN
  UPDATE featured_tags SET
      statuses_count = max(0, statuses_count - 1),
      last_status_at = CASE
        WHEN statuses_count <= 1 THEN NULL
        WHEN last_status_at > (SELECT created_at FROM statuses WHERE id = old.status_id) THEN last_status_at
        ELSE (SELECT max(s.created_at) FROM statuses_tags st JOIN statuses s ON s.id = st.status_id
              WHERE st.tag_id = old.tag_id AND s.account_id = featured_tags.account_id AND s.id <> old.status_id
                AND s.visibility IN ('public', 'unlisted') AND s.reblog_of_id IS NULL AND s.deleted_at IS NULL)
      END
    WHERE tag_id = old.tag_id AND account_id = (
      SELECT account_id FROM statuses WHERE id = old.status_id
        AND visibility IN ('public', 'unlisted') AND reblog_of_id IS NULL AND deleted_at IS NULL);
END;

-- A deleted status's tag links go first, while the status row is still there for the trigger
-- above to read (the foreign key's cascade would run after the row is gone).
CREATE TRIGGER statuses_unlink_tags BEFORE DELETE ON statuses BEGIN
  DELETE FROM statuses_tags WHERE status_id = old.id;
END;

-- The last week of uses of what is already stored.
INSERT INTO tag_day_accounts (tag_id, day, account_id)
  SELECT DISTINCT st.tag_id, s.created_at - s.created_at % 86400000, s.account_id
  FROM statuses_tags st JOIN statuses s ON s.id = st.status_id JOIN accounts a ON a.id = s.account_id
  WHERE s.created_at >= (CAST(strftime('%s', 'now') AS INTEGER) - 8 * 86400) * 1000
    AND s.visibility = 'public' AND s.reblog_of_id IS NULL AND a.silenced_at IS NULL;
INSERT INTO tag_days (tag_id, day, uses, accounts)
  SELECT st.tag_id, s.created_at - s.created_at % 86400000, count(*), count(DISTINCT s.account_id)
  FROM statuses_tags st JOIN statuses s ON s.id = st.status_id JOIN accounts a ON a.id = s.account_id
  WHERE s.created_at >= (CAST(strftime('%s', 'now') AS INTEGER) - 8 * 86400) * 1000
    AND s.visibility = 'public' AND s.reblog_of_id IS NULL AND a.silenced_at IS NULL
  GROUP BY 1, 2;
