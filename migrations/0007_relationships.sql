-- Relationship lists page by the hidden join-record id per owner (GET following, blocks,
-- mutes, domain_blocks, endorsements): these indexes make each page an index range scan
-- instead of a sort of all the owner's rows. The *_target ones serve the ON DELETE CASCADE
-- of a deleted account, which otherwise scans the whole table.
CREATE INDEX follows_account ON follows (account_id, id);
CREATE INDEX blocks_account ON blocks (account_id, id);
CREATE INDEX mutes_account ON mutes (account_id, id);
CREATE INDEX mutes_target ON mutes (target_account_id);
CREATE INDEX account_domain_blocks_account ON account_domain_blocks (account_id, id);
CREATE INDEX account_pins_account ON account_pins (account_id, id);
CREATE INDEX account_pins_target ON account_pins (target_account_id);
CREATE INDEX account_notes_target ON account_notes (target_account_id);
