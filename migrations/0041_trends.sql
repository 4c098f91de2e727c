-- Trends (src/trends/DESIGN.md): hashtags, posts and links that many accounts take up at
-- once, computed by the periodic task trends.refresh from our own data.

-- Web links seen in public posts (roost fetches no preview cards yet: a link is its URL).
CREATE TABLE trend_links (
  id         INTEGER PRIMARY KEY,
  url        TEXT NOT NULL UNIQUE,
  domain     TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX trend_links_domain ON trend_links (domain);

-- Who took an item up in which UTC hour (`hour` = its first millisecond): a hashtag or a link
-- in a public post or a boost of one, a post favourited or boosted. One row per account, so
-- counts are of distinct accounts. Recorded by the task from the rows added since its last
-- run; kept seven days (the links' history).
CREATE TABLE trend_uses (
  kind       TEXT NOT NULL CHECK (kind IN ('tag', 'status', 'link')),
  item_id    INTEGER NOT NULL,
  hour       INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  PRIMARY KEY (kind, item_id, hour, account_id)
) WITHOUT ROWID;
CREATE INDEX trend_uses_hour ON trend_uses (hour, kind);

-- What trends now: the score decays from the item's best (max_score at max_score_at).
CREATE TABLE trends (
  kind         TEXT NOT NULL CHECK (kind IN ('tag', 'status', 'link')),
  item_id      INTEGER NOT NULL,
  score        REAL NOT NULL,
  max_score    REAL NOT NULL,
  max_score_at INTEGER NOT NULL,
  PRIMARY KEY (kind, item_id)
) WITHOUT ROWID;
CREATE INDEX trends_score ON trends (kind, score DESC);

-- A moderator's decision on an item (trendable or not), kept after it stops trending; for
-- links also on a publisher (kind 'publisher': item_id is a trend_publishers id).
CREATE TABLE trend_reviews (
  kind        TEXT NOT NULL CHECK (kind IN ('tag', 'status', 'link', 'publisher')),
  item_id     INTEGER NOT NULL,
  trendable   INTEGER NOT NULL,
  reviewed_at INTEGER NOT NULL,
  PRIMARY KEY (kind, item_id)
) WITHOUT ROWID;

-- The sites links point at (Mastodon's PreviewCardProvider).
CREATE TABLE trend_publishers (
  id                  INTEGER PRIMARY KEY,
  domain              TEXT NOT NULL UNIQUE,
  requested_review_at INTEGER
);

-- Uses are recorded as rows arrive, by triggers, so every way a post, boost or favourite is
-- written (local or remote) counts, at the time it carries (a remote post's own date; an old
-- one falls outside every window). Silenced accounts and non-public posts do not count.
CREATE TRIGGER trend_uses_tag AFTER INSERT ON statuses_tags
  WHEN (SELECT s.visibility = 'public' AND s.reblog_of_id IS NULL AND a.silenced_at IS NULL
        FROM statuses s JOIN accounts a ON a.id = s.account_id WHERE s.id = new.status_id)
BEGIN
  INSERT OR IGNORE INTO trend_uses (kind, item_id, hour, account_id)
    SELECT 'tag', new.tag_id, created_at - created_at % 3600000, account_id FROM statuses WHERE id = new.status_id;
END;

-- A boost counts for the post and for its hashtags (Mastodon counts the booster).
CREATE TRIGGER trend_uses_boost AFTER INSERT ON statuses
  WHEN new.reblog_of_id IS NOT NULL AND new.visibility = 'public'
   AND (SELECT silenced_at IS NULL FROM accounts WHERE id = new.account_id)
   AND (SELECT visibility = 'public' FROM statuses WHERE id = new.reblog_of_id)
BEGIN
  INSERT OR IGNORE INTO trend_uses (kind, item_id, hour, account_id)
    VALUES ('status', new.reblog_of_id, new.created_at - new.created_at % 3600000, new.account_id);
  INSERT OR IGNORE INTO trend_uses (kind, item_id, hour, account_id)
    SELECT 'tag', tag_id, new.created_at - new.created_at % 3600000, new.account_id FROM statuses_tags WHERE status_id = new.reblog_of_id;
  INSERT INTO trend_link_queue (status_id, original_id) VALUES (new.id, new.reblog_of_id);
END;

CREATE TRIGGER trend_uses_favourite AFTER INSERT ON favourites
  WHEN (SELECT silenced_at IS NULL FROM accounts WHERE id = new.account_id)
BEGIN
  INSERT OR IGNORE INTO trend_uses (kind, item_id, hour, account_id)
    VALUES ('status', new.status_id, new.created_at - new.created_at % 3600000, new.account_id);
END;

-- Links need the HTML parsed: public posts that may hold one wait here for trends.refresh. A
-- post whose anchors are all mentions and hashtags as Mastodon and roost write them (most
-- posts with any anchor) is not queued: more `<a ` than such class attributes means a link.
CREATE TABLE trend_link_queue (
  status_id   INTEGER PRIMARY KEY,
  original_id INTEGER NOT NULL
);
CREATE TRIGGER trend_link_post AFTER INSERT ON statuses
  WHEN new.reblog_of_id IS NULL AND new.visibility = 'public' AND instr(new.content, 'href="http') > 0
   AND (length(new.content) - length(replace(new.content, '<a ', ''))) / 3 >
       (length(new.content) - length(replace(new.content, 'class="mention hashtag"', ''))) / 23
     + (length(new.content) - length(replace(new.content, 'class="u-url mention"', ''))) / 21
BEGIN
  INSERT OR IGNORE INTO trend_link_queue (status_id, original_id) VALUES (new.id, new.id);
END;
