-- The storage budget (issue 14 part 2): pruning asks of each old remote status whether anyone
-- here bookmarked or pinned it. Without these indexes each question scans the whole table.
CREATE INDEX IF NOT EXISTS bookmarks_status ON bookmarks (status_id); -- also made by 0033 (search)
CREATE INDEX IF NOT EXISTS status_pins_status ON status_pins (status_id);
-- Removing a status sets last_status_id of the conversations that end with it to NULL: found
-- by this index rather than by a scan per removed status.
CREATE INDEX IF NOT EXISTS account_conversations_last_status ON account_conversations (last_status_id) WHERE last_status_id IS NOT NULL;
