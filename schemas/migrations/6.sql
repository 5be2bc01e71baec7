-- Schema version 6: what a run belongs to and what built it. Takes a version-5 database forward
-- in the same transaction that sets user_version; schemas/store.sql creates the same objects in a
-- new database. Rows written before read NULL (not known). The configurations.status check gains
-- 'not_modelled' and 'unverified' in code (runner/store/schema.cpp), as SQLite cannot alter a
-- check constraint with ALTER TABLE.

-- One row per `bankbench run` invocation: every experiment it ran is one run of this session.
CREATE TABLE sessions (
  id           INTEGER PRIMARY KEY,
  started_at   TEXT    NOT NULL,
  finished_at  TEXT,
  status       TEXT    NOT NULL DEFAULT 'running'
               CHECK (status IN ('running', 'completed', 'interrupted', 'failed')),
  host         TEXT,
  pid          INTEGER,               -- of the supervising process, for stale-run detection
  command_line TEXT    NOT NULL,
  exit_code    INTEGER
);

ALTER TABLE runs ADD COLUMN session_id INTEGER REFERENCES sessions (id);
ALTER TABLE runs ADD COLUMN pid INTEGER;                  -- the process that wrote the run
ALTER TABLE runs ADD COLUMN sources_sha256 TEXT;          -- the kernel and runner sources built into bankbench
ALTER TABLE runs ADD COLUMN fingerprint TEXT;             -- what was measured: sources, experiment, backend
ALTER TABLE runs ADD COLUMN slurm_job_id TEXT;            -- SLURM_ARRAY_JOB_ID or SLURM_JOB_ID
ALTER TABLE runs ADD COLUMN slurm_array_task_id TEXT;     -- SLURM_ARRAY_TASK_ID
ALTER TABLE runs ADD COLUMN cuda_visible_devices TEXT;    -- CUDA_VISIBLE_DEVICES as the run saw it
ALTER TABLE runs ADD COLUMN shard TEXT;                   -- "I/N" for `run --shard I/N`
CREATE INDEX runs_by_session ON runs (session_id);

-- Source variants (kernels compiled at run time): the compile cache key and the compile time.
ALTER TABLE configurations ADD COLUMN compile_key TEXT;
ALTER TABLE configurations ADD COLUMN compile_ms REAL;
