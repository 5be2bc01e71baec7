-- Schema version 4: timing over several placements of a configuration's buffers. Takes a
-- version-3 database forward in the same transaction that sets user_version; schemas/store.sql
-- creates the same columns in a new database. Rows written before stay as they were: one
-- placement, every sample from instance 0.

-- How many instances of the configuration were timed, each with its own buffers; median_ns is
-- the median of the fastest instance's samples.
ALTER TABLE timings ADD COLUMN placements INTEGER NOT NULL DEFAULT 1 CHECK (placements >= 1);
-- The instance a sample timed: 0 is the one that was verified and counted.
ALTER TABLE timing_samples ADD COLUMN placement INTEGER NOT NULL DEFAULT 0 CHECK (placement >= 0);
