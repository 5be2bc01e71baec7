-- A results database of about one million metric rows, for bench/results_bench.sh: what a year of
-- nightly runs on a lab's GPUs looks like. Run on a database created from schemas/store.sql, with
-- two parameters set (sqlite3's .parameter set):
--   @host  the machine's name, so that two generated databases hold different runs (merge)
--   @day   days added to every start time
--
-- 4 GPUs (H200 and H100: sm_90; RTX 4090: sm_89; the bank model) x 3 experiments x 32 runs = 384
-- runs; 48 configurations a run (4 variants x 6 sizes x 2 tiles); 3 profiled launches (the model:
-- 1) x 22 metrics (7 CUPTI counters, 15 derived) = 1,013,760 metric rows; 20 timed samples each.
-- Every second run repeats the commit before it, so regress has repeated runs to learn noise from.

INSERT INTO gpus (uuid, backend, name, chip, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, sm_clock_max_mhz,
                  mem_clock_max_mhz, driver_version, cuda_driver_version, cuda_runtime_version, first_seen_at)
VALUES ('GPU-bench-h200', 'cupti', 'NVIDIA H200', 'GH100', 9, 0, 132, 150000000000, 52428800, 1980, 3201,
        '580.159.04', 13000, 13000, '2026-01-01T00:00:00.000Z'),
       ('GPU-bench-h100', 'cupti', 'NVIDIA H100 80GB HBM3', 'GH100', 9, 0, 132, 85899345920, 52428800, 1980, 2619,
        '580.159.04', 13000, 13000, '2026-01-01T00:00:00.000Z'),
       ('GPU-bench-4090', 'cupti', 'NVIDIA GeForce RTX 4090', 'AD102', 8, 9, 128, 25757220864, 75497472, 2520, 10501,
        '580.159.04', 13000, 13000, '2026-01-01T00:00:00.000Z'),
       ('model-rules-1', 'model', 'bank model (rules 1)', NULL, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0,
        '2026-01-01T00:00:00.000Z');

CREATE TEMP TABLE experiments (idx INTEGER, name TEXT, sha TEXT);
INSERT INTO experiments VALUES (0, 'transpose', lower(hex(randomblob(32)))), (1, 'stride', lower(hex(randomblob(32)))),
                               (2, 'matmul_tile', lower(hex(randomblob(32))));

WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 31)
INSERT INTO runs (gpu_id, started_at, finished_at, status, host, git_commit, git_dirty, bankbench_version,
                  experiment_name, experiment_path, experiment_text, experiment_sha256, command_line, metric_set,
                  metrics_json, seed, warmup, samples)
SELECT g.id,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || (k.i * 7 + @day) || ' days',
                '+' || (g.id * 60 + e.idx * 10) || ' minutes'),
       strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || (k.i * 7 + @day) || ' days',
                '+' || (g.id * 60 + e.idx * 10 + 5) || ' minutes'),
       'completed', @host,
       substr(printf('%08x%08x%08x%08x%08x', (k.i / 2 + 1) * 2654435761 % 4294967296, (k.i / 2 + 7) * 40503 % 4294967296,
                     (k.i / 2 + 3) * 9973 % 4294967296, (k.i / 2 + 5) * 7919 % 4294967296, (k.i / 2) * 104729 % 4294967296), 1, 40),
       0, '0.1.0', e.name, 'experiments/' || e.name || '.yaml', 'name: ' || e.name || char(10), e.sha,
       'bankbench run experiments/', 'bank_conflicts', '["smsp__sass_inst_executed_op_shared_ld.sum"]', 42, 3, 20
FROM k, experiments e, gpus g
ORDER BY k.i, e.idx, g.id;

CREATE TEMP TABLE variants (idx INTEGER, name TEXT, conflicts REAL);
INSERT INTO variants VALUES (0, 'naive', 31), (1, 'padded', 0.1173), (2, 'swizzled', 0), (3, 'xor', 0.5);
CREATE TEMP TABLE sizes (idx INTEGER, n INTEGER);
INSERT INTO sizes VALUES (0, 512), (1, 1024), (2, 2048), (3, 4096), (4, 8192), (5, 16384);
CREATE TEMP TABLE tiles (idx INTEGER, tile INTEGER);
INSERT INTO tiles VALUES (0, 16), (1, 32);

INSERT INTO configurations (run_id, seq, variant, family, params_json, status, bytes_moved, smem_access_bytes,
                            verified_elements, started_at, finished_at)
SELECT r.id, v.idx * 12 + s.idx * 2 + t.idx, r.experiment_name || '/' || v.name, r.experiment_name,
       json_object('n', s.n, 'tile', t.tile), 'ok', 8 * s.n * s.n, 4, s.n * s.n, r.started_at, r.finished_at
FROM runs r, variants v, sizes s, tiles t
ORDER BY r.id, v.idx, s.idx, t.idx;

-- The counters of each launch: requests, wavefronts and conflicts with a little launch-to-launch
-- noise (Hopper's padded-tile conflicts wander by about 1 %); the model counts exactly, once.
CREATE TEMP TABLE launches AS
WITH RECURSIVE l(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM l WHERE i < 2)
SELECT c.id AS cid, l.i AS launch, g.backend AS backend,
       json_extract(c.params_json, '$.n') * json_extract(c.params_json, '$.n') / 32.0 AS req,
       round(json_extract(c.params_json, '$.n') * json_extract(c.params_json, '$.n') / 32.0 *
             (CASE WHEN v.name = 'padded' AND g.cc_major <> 9 THEN 0 ELSE v.conflicts END) *
             (CASE WHEN g.backend = 'model' THEN 1 ELSE 1 + (abs(random()) % 10000) / 1000000.0 END)) AS con,
       1000 + json_extract(c.params_json, '$.n') * json_extract(c.params_json, '$.n') *
             (CASE WHEN v.name = 'naive' THEN 0.0072 ELSE 0.0027 END) AS ns
FROM configurations c
JOIN runs r ON r.id = c.run_id
JOIN gpus g ON g.id = r.gpu_id
JOIN variants v ON c.variant = r.experiment_name || '/' || v.name
JOIN l ON l.i = 0 OR g.backend <> 'model';

INSERT INTO metrics (configuration_id, name, launch_index, unit, value, derived)
SELECT cid, m.name, launch, m.unit,
       CASE m.name
         WHEN 'smsp__sass_inst_executed_op_shared_ld.sum' THEN req
         WHEN 'smsp__sass_inst_executed_op_shared_st.sum' THEN req
         WHEN 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum' THEN req + con
         WHEN 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum' THEN req
         WHEN 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum' THEN con
         WHEN 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum' THEN 0
         WHEN 'gpu__time_duration.sum' THEN ns * 1.3
         WHEN 'load_requests' THEN req
         WHEN 'store_requests' THEN req
         WHEN 'load_wavefronts' THEN req + con
         WHEN 'store_wavefronts' THEN req
         WHEN 'load_conflicts' THEN con
         WHEN 'store_conflicts' THEN 0
         WHEN 'load_wavefronts_per_request' THEN (req + con) / req
         WHEN 'store_wavefronts_per_request' THEN 1
         WHEN 'load_conflicts_per_request' THEN con / req
         WHEN 'store_conflicts_per_request' THEN 0
         WHEN 'load_excess_wavefronts' THEN con
         WHEN 'store_excess_wavefronts' THEN 0
         WHEN 'load_excess_wavefronts_per_request' THEN con / req
         WHEN 'store_excess_wavefronts_per_request' THEN 0
         WHEN 'profiled_time_ns' THEN ns * 1.3
       END,
       m.derived
FROM launches,
     (SELECT 'smsp__sass_inst_executed_op_shared_ld.sum' AS name, 'inst' AS unit, 0 AS derived
      UNION ALL SELECT 'smsp__sass_inst_executed_op_shared_st.sum', 'inst', 0
      UNION ALL SELECT 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum', '', 0
      UNION ALL SELECT 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum', '', 0
      UNION ALL SELECT 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum', '', 0
      UNION ALL SELECT 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum', '', 0
      UNION ALL SELECT 'gpu__time_duration.sum', 'nsecond', 0
      UNION ALL SELECT 'load_requests', 'requests', 1 UNION ALL SELECT 'store_requests', 'requests', 1
      UNION ALL SELECT 'load_wavefronts', 'wavefronts', 1 UNION ALL SELECT 'store_wavefronts', 'wavefronts', 1
      UNION ALL SELECT 'load_conflicts', 'conflicts', 1 UNION ALL SELECT 'store_conflicts', 'conflicts', 1
      UNION ALL SELECT 'load_wavefronts_per_request', 'ratio', 1
      UNION ALL SELECT 'store_wavefronts_per_request', 'ratio', 1
      UNION ALL SELECT 'load_conflicts_per_request', 'ratio', 1
      UNION ALL SELECT 'store_conflicts_per_request', 'ratio', 1
      UNION ALL SELECT 'load_excess_wavefronts', 'wavefronts', 1
      UNION ALL SELECT 'store_excess_wavefronts', 'wavefronts', 1
      UNION ALL SELECT 'load_excess_wavefronts_per_request', 'ratio', 1
      UNION ALL SELECT 'store_excess_wavefronts_per_request', 'ratio', 1
      UNION ALL SELECT 'profiled_time_ns', 'ns', 1) m
ORDER BY cid, m.name, launch;

-- Twenty event-timed samples of each measured configuration, within about 2 % of each other.
INSERT INTO timing_samples (configuration_id, sample_index, gpu_time_ns)
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 19)
SELECT cid, s.i, ns * (1 + (abs(random()) % 20000) / 1000000.0)
FROM launches, s
WHERE launch = 0 AND backend = 'cupti'
ORDER BY cid, s.i;

INSERT INTO timings (configuration_id, samples, median_ns, min_ns, max_ns, mean_ns, stddev_ns, spread, sm_clock_mhz,
                     sm_clock_max_mhz, throttled, bandwidth_gbps)
SELECT t.configuration_id, count(*), avg(t.gpu_time_ns), min(t.gpu_time_ns), max(t.gpu_time_ns), avg(t.gpu_time_ns),
       0, (max(t.gpu_time_ns) - min(t.gpu_time_ns)) / avg(t.gpu_time_ns), 1980, 1980, 0,
       c.bytes_moved / avg(t.gpu_time_ns)
FROM timing_samples t JOIN configurations c ON c.id = t.configuration_id
GROUP BY t.configuration_id;

INSERT INTO expectations (configuration_id, metric, text, observed, passed)
SELECT c.id, 'load_conflicts_per_request', 'load_conflicts_per_request < 0.2', m.value, m.value < 0.2
FROM configurations c JOIN metrics m ON m.configuration_id = c.id
WHERE m.name = 'load_conflicts_per_request' AND m.launch_index = 0 AND c.variant NOT LIKE '%/naive';
