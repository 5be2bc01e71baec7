-- Schema version 5: the buffer pool's memory per configuration. Takes a version-4 database forward
-- in the same transaction that sets user_version; schemas/store.sql creates the same column in a
-- new database. Rows written before read NULL (not known).

-- Device memory the measuring process's buffer pool held mapped once the configuration had given
-- its buffers back (in use or idle); NULL with `run --allocator driver`. device_used_bytes leaves
-- the pool's idle part out, so a pool that kept growing shows here.
ALTER TABLE configurations ADD COLUMN pool_reserved_bytes INTEGER;
