-- GET /api/v1/bookmarks and /api/v1/favourites page by the hidden record id per owner: these
-- indexes make each page an index range scan instead of a sort of all the owner's rows.
CREATE INDEX bookmarks_account ON bookmarks (account_id, id);
CREATE INDEX favourites_account ON favourites (account_id, id);
CREATE INDEX status_pins_account ON status_pins (account_id, id);
