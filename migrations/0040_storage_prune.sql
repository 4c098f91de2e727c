-- The storage budget (issue 14 part 2): pruning asks of each old remote status whether anyone
-- here bookmarked or pinned it. Without these indexes each question scans the whole table.
CREATE INDEX bookmarks_status ON bookmarks (status_id);
CREATE INDEX status_pins_status ON status_pins (status_id);
