-- Account names for search (src/search/DESIGN.md): username and display name words, with
-- prefix indexes so that `al` finds `alice` and `Al Smith` from the index alone. Kept by
-- triggers, so every way an account is written (sign-up, a remote profile, an edit) keeps it.
CREATE VIRTUAL TABLE account_search USING fts5(
  username, display_name,
  content = '', contentless_delete = 1, prefix = '1 2 3',
  tokenize = 'unicode61 remove_diacritics 2'
);
-- Its words, for the fuzzy matcher (src/search/fuzzy-names.ts).
CREATE VIRTUAL TABLE account_search_terms USING fts5vocab(account_search, 'row');

INSERT INTO account_search (rowid, username, display_name) SELECT id, username, display_name FROM accounts;

CREATE TRIGGER account_search_insert AFTER INSERT ON accounts
BEGIN
  INSERT OR REPLACE INTO account_search (rowid, username, display_name) VALUES (NEW.id, NEW.username, NEW.display_name);
END;
CREATE TRIGGER account_search_update AFTER UPDATE OF username, display_name ON accounts
  WHEN OLD.username IS NOT NEW.username OR OLD.display_name IS NOT NEW.display_name
BEGIN
  INSERT OR REPLACE INTO account_search (rowid, username, display_name) VALUES (NEW.id, NEW.username, NEW.display_name);
END;
CREATE TRIGGER account_search_delete AFTER DELETE ON accounts
BEGIN
  DELETE FROM account_search WHERE rowid = OLD.id;
END;
