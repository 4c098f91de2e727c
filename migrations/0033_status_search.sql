-- Full-text search over statuses (src/search/DESIGN.md). An FTS5 index without a copy of the
-- text (contentless; rows can still be deleted and replaced by rowid), keyed by status id, so
-- ids (time-ordered) bound date ranges and give the newest-first order.
--   text: Mastodon's Status#searchable_text (content warning, plain text, poll options, media
--         descriptions), stemmed by porter; `_` joins words, as in Elasticsearch's tokenizer.
--   meta: the words the query language filters on, each `_..._` so no stemming changes them:
--         who may find the post (`_pub_`: public and its author `indexable`; `_by<id>_`: a local
--         account whose library it is in), its author (`_f<id>_`) and domain, its properties,
--         language and hashtags. Written by src/search/status-index.ts as posts change.
CREATE VIRTUAL TABLE status_search USING fts5(
  text, meta,
  content = '', contentless_delete = 1,
  tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);

-- However a status goes (a delete, an account purge's cascade), its entry goes with it.
CREATE TRIGGER status_search_delete AFTER DELETE ON statuses WHEN OLD.reblog_of_id IS NULL
BEGIN
  DELETE FROM status_search WHERE rowid = OLD.id;
END;

-- Who bookmarked a status (its searchable_by), read when the status is indexed.
CREATE INDEX bookmarks_status ON bookmarks (status_id);

-- An instance that already has statuses builds the index in the background (job search.rebuild,
-- started by the server); `roost search reindex` builds it at once.
INSERT INTO settings (key, value) SELECT 'search.statuses_pending', 'true' WHERE EXISTS (SELECT 1 FROM statuses);
