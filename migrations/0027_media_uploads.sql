-- Local uploads (issue 10). `file` is the processed original; `small_file` the preview made from
-- it; `thumbnail_file` a preview the author uploaded (Mastodon's `thumbnail`), shown instead.
-- `processing`: 0 complete, 1 queued or running, 2 failed (a value the 0001 schema leaves free).
-- `position` keeps the order of `media_ids[]` (NULL for remote rows, which keep id order).
ALTER TABLE media_attachments ADD COLUMN small_file TEXT;
ALTER TABLE media_attachments ADD COLUMN position INTEGER;

-- The periodic clean-up of unattached uploads (media.cleanup) scans these.
CREATE INDEX media_attachments_unattached ON media_attachments (created_at)
  WHERE status_id IS NULL AND remote_url IS NULL;
