-- Scheduled statuses (POST /api/v1/statuses with scheduled_at). `params` is the creation input
-- as the route parsed it (JSON), replayed through createStatus at `scheduled_at`; `job_id` is
-- the persisted `scheduled_status.publish` job that does it, replaced when the time changes.
CREATE TABLE scheduled_statuses (
  id             INTEGER PRIMARY KEY,
  account_id     INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  scheduled_at   INTEGER NOT NULL,
  params         TEXT NOT NULL,
  application_id INTEGER REFERENCES oauth_applications(id) ON DELETE SET NULL,
  job_id         INTEGER,
  created_at     INTEGER NOT NULL
);
CREATE INDEX scheduled_statuses_account ON scheduled_statuses (account_id, id);
-- The per-day limit counts an account's posts scheduled on one UTC day.
CREATE INDEX scheduled_statuses_account_time ON scheduled_statuses (account_id, scheduled_at);

-- Uploads reserved by a scheduled post (Mastodon's media_attachments.scheduled_status_id): shown
-- in its media_attachments, kept from orphan clean-up, attached to the status on publication,
-- and free again when the scheduled post is deleted.
ALTER TABLE media_attachments ADD COLUMN scheduled_status_id INTEGER REFERENCES scheduled_statuses(id) ON DELETE SET NULL;
CREATE INDEX media_attachments_scheduled ON media_attachments (scheduled_status_id) WHERE scheduled_status_id IS NOT NULL;
