-- Custom emoji files (issue 10 part 7). Remote emojis are copied here by the emoji.fetch job
-- (safe fetch, at most 50 KB, PNG/GIF/WebP) and shown only once copied: clients never load
-- another server's image. `fetch_error` records why a copy was refused ('too_large',
-- 'invalid'), so the same image is not fetched again until the peer announces a new one.
ALTER TABLE custom_emojis ADD COLUMN image_size INTEGER;
ALTER TABLE custom_emojis ADD COLUMN fetch_error TEXT;
