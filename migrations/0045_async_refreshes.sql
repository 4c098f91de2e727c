-- Background refreshes a client may poll (Mastodon 4.4's AsyncRefresh, `Mastodon-Async-Refresh`
-- header, GET /api/v1_alpha/async_refreshes/:id). One row per refreshed thing (`key`, e.g.
-- `context:<status id>`): the row of the last refresh says whether one is running and when it
-- finished, so a thread is not fetched again within the configured interval.
CREATE TABLE async_refreshes (
  id            TEXT PRIMARY KEY,          -- opaque, random (the header's id="...")
  key           TEXT NOT NULL UNIQUE,
  status        TEXT NOT NULL CHECK (status IN ('running', 'finished')),
  result_count  INTEGER,                   -- posts found so far; NULL when not counted
  created_at    INTEGER NOT NULL,
  finished_at   INTEGER
);

CREATE INDEX async_refreshes_finished ON async_refreshes (finished_at);
