-- Schema version 3: what each timing sample saw and what each configuration held. Takes a
-- version-2 database forward in the same transaction that sets user_version; schemas/store.sql
-- creates the same columns in a new database. Rows written before stay as they were (NULL or 0).

-- The SM clock and throttle state read when the host saw each sample finish.
ALTER TABLE timing_samples ADD COLUMN sm_clock_mhz INTEGER;
ALTER TABLE timing_samples ADD COLUMN throttled INTEGER NOT NULL DEFAULT 0 CHECK (throttled IN (0, 1));
-- How many of a configuration's samples were taken while the GPU throttled.
ALTER TABLE timings ADD COLUMN throttled_samples INTEGER NOT NULL DEFAULT 0 CHECK (throttled_samples >= 0);
-- Kernels shorter than 50 us are timed as batches of back-to-back launches; samples are per launch.
ALTER TABLE timings ADD COLUMN launches_per_sample INTEGER NOT NULL DEFAULT 1 CHECK (launches_per_sample >= 1);
-- Resources: the measuring process's peak resident memory so far, and the device memory in use
-- once the configuration's buffers were released (growth across a run is a leak).
ALTER TABLE configurations ADD COLUMN host_rss_peak_bytes INTEGER;
ALTER TABLE configurations ADD COLUMN device_used_bytes INTEGER;
