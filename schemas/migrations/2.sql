-- Schema version 2: named baselines and views for reading results. Takes a version-1 database
-- forward in the same transaction that sets user_version; schemas/store.sql creates the same
-- objects in a new database. Nothing here changes a row that version 1 wrote.

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

-- results gains the GPU's architecture and backend, the commit and the start of the run, as its
-- last columns so that version 1's columns keep their places.
DROP VIEW results;
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
