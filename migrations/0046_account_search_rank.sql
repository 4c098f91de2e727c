-- Account search's rank order beyond the exact and followed matches (storage/account-search.ts):
-- local accounts first, then the most followed. A short prefix matching thousands of accounts
-- walks this index and stops after a page, instead of ranking every match; it covers what the
-- walk reads of each account (the rows themselves are wide: keys, notes).
CREATE INDEX accounts_search_rank ON accounts ((domain IS NULL) DESC, followers_count DESC, id, domain, suspended_at, lower(username));
