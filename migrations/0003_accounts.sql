-- Profile fields as typed by a local user ([{name, value}] plain text), next to `fields`
-- (rendered HTML, what the API and federation show). CredentialAccount.source.fields and
-- profile editing need the text back; HTML cannot be turned back into it reliably.
ALTER TABLE accounts ADD COLUMN fields_source TEXT NOT NULL DEFAULT '[]';
