-- Schema version 7: what compiled a source variant. Takes a version-6 database forward in the
-- same transaction that sets user_version; schemas/store.sql creates the same columns in a new
-- database. Rows written before read NULL (not known).
ALTER TABLE configurations ADD COLUMN compiler TEXT;
ALTER TABLE configurations ADD COLUMN compile_options TEXT;
