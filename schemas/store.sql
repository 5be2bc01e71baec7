-- bankbench results database, schema version 9: the whole schema of a new database.
--
-- This text is compiled into bankbench and applied in one transaction when a database is
-- created. A later schema version adds schemas/migrations/<version>.sql for existing databases
-- and updates this file, so a new database is always created at the newest version in one step.
-- docs/database.md describes every table and view for users.
--
-- Times are ISO-8601 UTC text ("2026-11-21T08:30:12.123Z"); durations and sizes carry their unit
-- in the column name. Empty optional text is stored as NULL.

PRAGMA application_id = 1111641675; -- 0x42424E4B, "BBNK": marks the file as ours
PRAGMA user_version = 9;

-- One row per GPU and backend ("cupti": measured on the device; "model": predicted).
CREATE TABLE gpus (
  id                   INTEGER PRIMARY KEY,
  uuid                 TEXT    NOT NULL,
  backend              TEXT    NOT NULL DEFAULT 'cupti',
  name                 TEXT    NOT NULL,
  chip                 TEXT,
  cc_major             INTEGER NOT NULL,
  cc_minor             INTEGER NOT NULL,
  sm_count             INTEGER NOT NULL,
  memory_bytes         INTEGER NOT NULL,
  l2_bytes             INTEGER NOT NULL,
  sm_clock_max_mhz     INTEGER NOT NULL,
  mem_clock_max_mhz    INTEGER NOT NULL,
  driver_version       TEXT,              -- "580.159.04"
  cuda_driver_version  INTEGER NOT NULL,  -- 13000 for CUDA 13.0
  cuda_runtime_version INTEGER NOT NULL,
  first_seen_at        TEXT    NOT NULL,
  UNIQUE (uuid, backend)
);

-- One row per experiment of a `bankbench run` and per `bankbench attach`; written first with
-- status 'running' so an interrupted run is kept. The comments after shard hold no comma: SQLite
-- 3.40's ALTER TABLE DROP COLUMN of a last column takes such a comma for the column separator.
CREATE TABLE runs (
  id                INTEGER PRIMARY KEY,
  gpu_id            INTEGER NOT NULL REFERENCES gpus (id),
  started_at        TEXT    NOT NULL,
  finished_at       TEXT,
  status            TEXT    NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'completed', 'interrupted', 'failed')),
  host              TEXT,
  git_commit        TEXT,
  git_dirty         INTEGER NOT NULL DEFAULT 0 CHECK (git_dirty IN (0, 1)),
  bankbench_version TEXT    NOT NULL,
  experiment_name   TEXT    NOT NULL,
  experiment_path   TEXT    NOT NULL,
  experiment_text   TEXT    NOT NULL,     -- the YAML as read, so a run can be repeated exactly
  experiment_sha256 TEXT    NOT NULL,
  command_line      TEXT    NOT NULL,
  metric_set        TEXT,
  metrics_json      TEXT    NOT NULL CHECK (json_valid(metrics_json)), -- CUPTI metric names
  seed              INTEGER NOT NULL,     -- seeds of 2^63 and above read back as negative numbers
  warmup            INTEGER NOT NULL,
  samples           INTEGER NOT NULL,
  -- Version 6: the session (one `bankbench run` invocation) and what built and ran the run.
  session_id           INTEGER REFERENCES sessions (id),
  pid                  INTEGER,            -- the process that wrote the run
  sources_sha256       TEXT,               -- the kernel and runner sources built into bankbench
  fingerprint          TEXT,               -- what was measured: sources, experiment, backend
  slurm_job_id         TEXT,               -- SLURM_ARRAY_JOB_ID or SLURM_JOB_ID
  slurm_array_task_id  TEXT,               -- SLURM_ARRAY_TASK_ID
  cuda_visible_devices TEXT,               -- CUDA_VISIBLE_DEVICES as the run saw it
  shard                TEXT,               -- "I/N" for `run --shard I/N`
  -- Version 9: the runs of `bankbench attach` (one configuration per kernel launch profiled).
  -- program_exit is the exit code of the program (128 + signal when a signal ended it) and NULL
  -- while it runs or when unknown. note says how the run ended in words ("program exited with
  -- code 3" or "stopped at the time limit (30 s)") and is NULL when there is nothing to say.
  kind                 TEXT    NOT NULL DEFAULT 'run'
                       CHECK (kind IN ('run', 'attach')), -- 'attach': made by `bankbench attach`
  working_directory    TEXT,               -- attach: where the program ran
  program_exit         INTEGER,            -- attach: the exit code of the program (see above)
  note                 TEXT                -- how the run ended in words (see above)
);
CREATE INDEX runs_by_gpu ON runs (gpu_id);
CREATE INDEX runs_by_experiment ON runs (experiment_name, started_at);

-- One row per point of the experiment's sweep, in the order it ran.
CREATE TABLE configurations (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq                 INTEGER NOT NULL CHECK (seq >= 0),
  variant             TEXT    NOT NULL,   -- "family/name"
  family              TEXT    NOT NULL,
  params_json         TEXT    NOT NULL CHECK (json_valid(params_json)), -- canonical: keys sorted
  status              TEXT    NOT NULL
                      CHECK (status IN ('ok', 'failed', 'wrong_result', 'unsupported', 'skipped', 'not_modelled', 'unverified')),
  reason              TEXT,
  bytes_moved         INTEGER NOT NULL DEFAULT 0,
  smem_access_bytes   INTEGER NOT NULL,
  verified_elements   INTEGER NOT NULL DEFAULT 0,
  mismatched_elements INTEGER NOT NULL DEFAULT 0,
  started_at          TEXT,
  finished_at         TEXT,
  host_rss_peak_bytes INTEGER,              -- the measuring process's peak resident memory so far
  device_used_bytes   INTEGER,              -- device memory in use after the buffers were released
  pool_reserved_bytes INTEGER,              -- then mapped by the buffer pool; NULL: the driver allocator
  compile_key         TEXT,                 -- source variants: the compile cache key (version 6)
  compile_ms          REAL,                 -- source variants: compile time, 0 on a cache hit (version 6)
  compiler            TEXT,                 -- source variants: "nvrtc 13.0" or "nvcc 13.0.88" (version 7)
  compile_options     TEXT,                 -- source variants: every flag, the architecture first (version 7)
  UNIQUE (run_id, seq)
);
CREATE INDEX configurations_by_variant ON configurations (variant, params_json);

-- One row per configuration, launch and metric: raw CUPTI counters (derived = 0) and the values
-- bankbench computes from them (derived = 1). Keyed by name first so a mean over launches is a
-- range scan.
CREATE TABLE metrics (
  configuration_id INTEGER NOT NULL REFERENCES configurations (id) ON DELETE CASCADE,
  name             TEXT    NOT NULL,
  launch_index     INTEGER NOT NULL CHECK (launch_index >= 0),
  unit             TEXT    NOT NULL DEFAULT '',
  value            REAL    NOT NULL,
  derived          INTEGER NOT NULL CHECK (derived IN (0, 1)),
  PRIMARY KEY (configuration_id, name, launch_index)
) WITHOUT ROWID;
CREATE INDEX metrics_by_name ON metrics (name);

-- Event-timed samples of one configuration, outside the profiler, and their summary.
CREATE TABLE timings (
  configuration_id INTEGER PRIMARY KEY REFERENCES configurations (id) ON DELETE CASCADE,
  samples          INTEGER NOT NULL CHECK (samples >= 0),
  median_ns        REAL    NOT NULL,
  min_ns           REAL    NOT NULL,
  max_ns           REAL    NOT NULL,
  mean_ns          REAL    NOT NULL,
  stddev_ns        REAL    NOT NULL,
  spread           REAL    NOT NULL,     -- (max_ns - min_ns) / median_ns
  sm_clock_mhz     INTEGER,              -- SM clock seen during the samples
  sm_clock_max_mhz INTEGER,
  throttled        INTEGER NOT NULL DEFAULT 0 CHECK (throttled IN (0, 1)),
  throttle_reasons TEXT,
  bandwidth_gbps   REAL,                 -- bytes_moved / median_ns
  throttled_samples INTEGER NOT NULL DEFAULT 0 CHECK (throttled_samples >= 0),
  launches_per_sample INTEGER NOT NULL DEFAULT 1 CHECK (launches_per_sample >= 1), -- samples are per launch
  placements       INTEGER NOT NULL DEFAULT 1 CHECK (placements >= 1) -- instances timed; median_ns is the fastest's
);

CREATE TABLE timing_samples (
  configuration_id INTEGER NOT NULL REFERENCES configurations (id) ON DELETE CASCADE,
  sample_index     INTEGER NOT NULL CHECK (sample_index >= 0),
  gpu_time_ns      REAL    NOT NULL,
  sm_clock_mhz     INTEGER,              -- read when the host saw this sample finish
  throttled        INTEGER NOT NULL DEFAULT 0 CHECK (throttled IN (0, 1)),
  placement        INTEGER NOT NULL DEFAULT 0 CHECK (placement >= 0), -- the instance timed, 0 = the verified one
  PRIMARY KEY (configuration_id, sample_index)
) WITHOUT ROWID;

-- The experiment's `expect:` checks, evaluated on the mean over launches.
CREATE TABLE expectations (
  id               INTEGER PRIMARY KEY,
  configuration_id INTEGER NOT NULL REFERENCES configurations (id) ON DELETE CASCADE,
  metric           TEXT    NOT NULL,
  text             TEXT    NOT NULL,     -- the check as written, e.g. "load_conflicts_per_request == 0"
  observed         REAL,                 -- NULL when the metric was not measured
  passed           INTEGER NOT NULL CHECK (passed IN (0, 1))
);
CREATE INDEX expectations_by_configuration ON expectations (configuration_id);

-- One row per configuration, for `sqlite3 results/bankbench.sqlite 'select * from results'`.
-- Metric columns are means over launches of bankbench's derived metrics; NULL when not measured.
-- Version 2 added the last four columns.
CREATE VIEW results AS
SELECT
  c.run_id,
  r.experiment_name,
  g.name AS gpu_name,
  c.seq,
  c.variant,
  c.params_json,
  c.status,
  (SELECT avg(value) FROM metrics m WHERE m.configuration_id = c.id
     AND m.name = 'load_requests' AND m.derived = 1) AS load_requests,
  (SELECT avg(value) FROM metrics m WHERE m.configuration_id = c.id
     AND m.name = 'load_wavefronts_per_request' AND m.derived = 1) AS load_wavefronts_per_request,
  (SELECT avg(value) FROM metrics m WHERE m.configuration_id = c.id
     AND m.name = 'load_conflicts_per_request' AND m.derived = 1) AS load_conflicts_per_request,
  (SELECT avg(value) FROM metrics m WHERE m.configuration_id = c.id
     AND m.name = 'store_requests' AND m.derived = 1) AS store_requests,
  (SELECT avg(value) FROM metrics m WHERE m.configuration_id = c.id
     AND m.name = 'store_wavefronts_per_request' AND m.derived = 1) AS store_wavefronts_per_request,
  (SELECT avg(value) FROM metrics m WHERE m.configuration_id = c.id
     AND m.name = 'store_conflicts_per_request' AND m.derived = 1) AS store_conflicts_per_request,
  t.median_ns,
  t.bandwidth_gbps,
  (SELECT count(*) FROM expectations e WHERE e.configuration_id = c.id
     AND e.passed = 0) AS expectations_failed,
  CASE WHEN g.backend = 'cupti' THEN 'sm_' || g.cc_major || g.cc_minor
       WHEN g.cc_major = 0 THEN g.backend
       ELSE g.backend || ':sm_' || g.cc_major || g.cc_minor END AS arch,
  g.backend,
  r.git_commit,
  r.started_at
FROM configurations c
JOIN runs r ON r.id = c.run_id
JOIN gpus g ON g.id = r.gpu_id
LEFT JOIN timings t ON t.configuration_id = c.id
ORDER BY c.run_id, c.seq;

-- Every metric value with what it belongs to, for ad-hoc queries and plotting.
CREATE VIEW metrics_long AS
SELECT
  c.run_id,
  g.name AS gpu_name,
  c.seq,
  c.variant,
  c.params_json,
  m.launch_index,
  m.name AS metric,
  m.unit,
  m.value,
  m.derived
FROM metrics m
JOIN configurations c ON c.id = m.configuration_id
JOIN runs r ON r.id = c.run_id
JOIN gpus g ON g.id = r.gpu_id
ORDER BY c.run_id, c.seq, m.launch_index, m.name;

-- Version 2 (schemas/migrations/2.sql).

-- `bankbench baseline save|import`: a named snapshot of one or more runs' results, kept as the
-- JSON document `bankbench baseline export` writes, so that it outlives the runs it came from.
CREATE TABLE baselines (
  id            INTEGER PRIMARY KEY,
  name          TEXT    NOT NULL UNIQUE,
  created_at    TEXT    NOT NULL,
  source        TEXT    NOT NULL,      -- "run 12", "commit 0a1b2c3d4e5f", "file results/baselines/sm_90.json"
  experiments   TEXT    NOT NULL,      -- "transpose", or "reduce, transpose"
  architectures TEXT    NOT NULL,      -- "sm_90"; "model" for the bank model's predictions
  content_json  TEXT    NOT NULL CHECK (json_valid(content_json))
);

-- `bankbench regress COMMIT` and `history` look runs up by commit.
CREATE INDEX runs_by_commit ON runs (git_commit);

-- One line per run with its GPU's architecture: sm_<major><minor> for a measured GPU, the
-- backend's name ("model") for predictions.
CREATE VIEW run_summaries AS
SELECT
  r.id AS run_id,
  r.started_at,
  r.status,
  r.experiment_name,
  g.name AS gpu_name,
  CASE WHEN g.backend = 'cupti' THEN 'sm_' || g.cc_major || g.cc_minor
       WHEN g.cc_major = 0 THEN g.backend
       ELSE g.backend || ':sm_' || g.cc_major || g.cc_minor END AS arch,
  g.backend,
  r.host,
  r.git_commit,
  r.git_dirty,
  (SELECT count(*) FROM configurations c WHERE c.run_id = r.id) AS configurations,
  (SELECT count(*) FROM configurations c WHERE c.run_id = r.id
     AND c.status NOT IN ('ok', 'skipped')) AS failed_configurations
FROM runs r
JOIN gpus g ON g.id = r.gpu_id
ORDER BY r.id;

-- Every metric of every configuration summarised over its launches.
CREATE VIEW metric_summaries AS
SELECT
  c.run_id,
  c.seq,
  c.variant,
  c.params_json,
  m.name AS metric,
  m.unit,
  m.derived,
  avg(m.value) AS mean,
  min(m.value) AS min,
  max(m.value) AS max,
  count(*) AS launches
FROM metrics m
JOIN configurations c ON c.id = m.configuration_id
GROUP BY m.configuration_id, m.name
ORDER BY c.run_id, c.seq, m.name;

-- A baseline's values, one row per configuration and metric.
CREATE VIEW baseline_values AS
SELECT
  b.name AS baseline,
  json_extract(c.value, '$.experiment') AS experiment_name,
  json_extract(c.value, '$.arch') AS arch,
  json_extract(c.value, '$.variant') AS variant,
  json_extract(c.value, '$.params') AS params_json,
  m.key AS metric,
  json_extract(m.value, '$.mean') AS mean,
  json_extract(m.value, '$.min') AS min,
  json_extract(m.value, '$.max') AS max,
  json_extract(m.value, '$.noise') AS noise
FROM baselines b, json_each(b.content_json, '$.configurations') c, json_each(c.value, '$.metrics') m;

-- Version 6 (schemas/migrations/6.sql).

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
CREATE INDEX runs_by_session ON runs (session_id);

-- Version 8 (schemas/migrations/8.sql).

-- One row per configuration whose lines were asked for: how the collection went. A configuration
-- without a row here was not asked (or was stored before version 8).
CREATE TABLE line_collections (
  configuration_id INTEGER PRIMARY KEY REFERENCES configurations (id) ON DELETE CASCADE,
  status           TEXT    NOT NULL CHECK (status IN ('ok', 'no_line_info', 'no_records', 'failed', 'unsupported')),
  note             TEXT,                -- why, for a status other than ok; what was left out, for ok
  kernel           TEXT,                -- the instrumented function (mangled name)
  instructions     INTEGER NOT NULL DEFAULT 0, -- shared-memory instructions stored in line_counters
  collect_ms       REAL,                -- the collecting process, start to end
  collected_at     TEXT    NOT NULL
);

-- One row per shared-memory SASS instruction of the configuration's kernel, one launch's worth,
-- from CUPTI's SASS metrics (per-instruction instrumentation). excess = wavefronts - ideal.
CREATE TABLE line_counters (
  configuration_id INTEGER NOT NULL REFERENCES configurations (id) ON DELETE CASCADE,
  function         TEXT    NOT NULL,    -- mangled name of the function holding the instruction
  pc               INTEGER NOT NULL CHECK (pc >= 0), -- byte offset in the function
  file             TEXT    NOT NULL,    -- source file ('' without line info)
  line             INTEGER NOT NULL CHECK (line >= 0), -- 0 without line info
  opcode           TEXT    NOT NULL,    -- SASS mnemonic, e.g. LDS.128 ('' where not disassembled)
  kind             TEXT    NOT NULL,    -- lds, sts, atoms, ldsm, stsm, ldgsts, gmma, shared
  executions       INTEGER NOT NULL CHECK (executions >= 0), -- warp instructions executed
  threads          INTEGER NOT NULL CHECK (threads >= 0),    -- thread instructions, predicate on
  wavefronts       INTEGER NOT NULL CHECK (wavefronts >= 0),
  ideal            INTEGER NOT NULL CHECK (ideal >= 0),
  source           TEXT    NOT NULL DEFAULT '', -- the line's text when it was collected ('' unread)
  PRIMARY KEY (configuration_id, function, pc)
) WITHOUT ROWID;
