-- Follow suggestions (issue 15 part 5, src/suggestions/DESIGN.md) and the link timeline.

-- Accounts the admins feature (Mastodon's Setting.bootstrap_timeline_accounts): suggested to
-- everyone first, source `featured`. `roost accounts feature|unfeature`.
CREATE TABLE featured_accounts (
  account_id INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL
);

-- The global sources, recomputed by the periodic task suggestions.refresh (Mastodon's
-- follow_recommendations view): `reasons` is a JSON array of most_followed and
-- most_interactions; `rank` the sum of each reason's n / (1 + n).
CREATE TABLE follow_recommendations (
  account_id INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  rank       REAL NOT NULL,
  reasons    TEXT NOT NULL
);
CREATE INDEX follow_recommendations_rank ON follow_recommendations (rank DESC, account_id);

-- Suggestions a user dismissed (DELETE /api/v1/suggestions/:account_id): never again.
CREATE TABLE follow_recommendation_mutes (
  account_id        INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  target_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at        INTEGER NOT NULL,
  PRIMARY KEY (account_id, target_account_id)
) WITHOUT ROWID;
CREATE INDEX follow_recommendation_mutes_target ON follow_recommendation_mutes (target_account_id);

-- A trending link's card is found by the link as posts have it (trend_links.url).
CREATE INDEX preview_cards_statuses_url ON preview_cards_statuses (url);
