-- admin.report notifications (Mastodon's Notification.report): staff hear of every new report,
-- local or from a remote Flag, and the notification goes with its report.
ALTER TABLE notifications ADD COLUMN report_id INTEGER REFERENCES reports(id) ON DELETE CASCADE;
CREATE INDEX notifications_report ON notifications (report_id) WHERE report_id IS NOT NULL;
