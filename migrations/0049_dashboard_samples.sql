-- The admin dashboard's figures over time that no other table keeps per day (issue 14 part 5):
-- one row per hour, written by the `dashboard.sample` periodic task, kept 90 days (2,160 rows
-- at most). Deliveries and inbox count what happened during the hour; the rest is the state
-- at the time of the sample.
CREATE TABLE dashboard_samples (
  at             INTEGER PRIMARY KEY,               -- start of the hour, UTC ms
  queue_depth    INTEGER NOT NULL,                  -- jobs waiting or running
  dead_jobs      INTEGER NOT NULL,
  database_bytes INTEGER NOT NULL,                  -- pages in use
  media_bytes    INTEGER NOT NULL,
  deliveries     INTEGER NOT NULL,                  -- outgoing deliveries done during the hour
  inbox          INTEGER NOT NULL                   -- activities received during the hour
);

-- The admin measures count sign-ups and reports per day (POST /api/v1/admin/measures).
CREATE INDEX users_created ON users (created_at);
CREATE INDEX reports_created ON reports (created_at);
CREATE INDEX reports_action_taken ON reports (action_taken_at) WHERE action_taken_at IS NOT NULL;

-- Deleting a status sets notification_requests.last_status_id to NULL: without an index each
-- deleted status scanned the table (roost prune deletes remote statuses by the hundred thousand).
CREATE INDEX notification_requests_last_status ON notification_requests (last_status_id) WHERE last_status_id IS NOT NULL;
