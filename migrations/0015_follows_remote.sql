-- Whether a follow's follower is a remote account. Every local post asks "does the author have
-- a remote follower?" inside its write transaction; without this the answer walks all of the
-- author's followers (thousands of local ones). Set by a trigger, so every way a follow is
-- made (follow, accepted request, a Move) keeps it right; an account never changes side.
ALTER TABLE follows ADD COLUMN remote INTEGER NOT NULL DEFAULT 0;
UPDATE follows SET remote = 1 WHERE account_id IN (SELECT id FROM accounts WHERE domain IS NOT NULL);
CREATE INDEX follows_remote_target ON follows (target_account_id) WHERE remote = 1;
CREATE TRIGGER follows_mark_remote AFTER INSERT ON follows
  WHEN (SELECT domain FROM accounts WHERE id = new.account_id) IS NOT NULL
BEGIN
  UPDATE follows SET remote = 1 WHERE id = new.id;
END;
