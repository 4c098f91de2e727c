-- The audit page's action_type filter (Mastodon's ActionLogFilter: target_type and action) and
-- its list of choices, read by skipping from one (target_type, action) pair to the next, both
-- through this index instead of a scan of the whole log. The actor filter and its choices use
-- admin_action_logs_account, target_account_id uses admin_action_logs_target (0030).
CREATE INDEX admin_action_logs_kind ON admin_action_logs (target_type, action, id);
