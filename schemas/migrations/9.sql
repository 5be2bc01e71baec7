-- Schema version 9: runs of `bankbench attach`, which profiles the kernels of a program it starts.
-- Takes a version-8 database forward in the same transaction that sets user_version;
-- schemas/store.sql creates the same columns in a new database. Runs written before read kind
-- 'run' and NULL for the rest.
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'run' CHECK (kind IN ('run', 'attach'));
ALTER TABLE runs ADD COLUMN working_directory TEXT;
ALTER TABLE runs ADD COLUMN program_exit INTEGER;
ALTER TABLE runs ADD COLUMN note TEXT;
