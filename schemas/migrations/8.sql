-- Schema version 8: shared-memory wavefronts per SASS instruction and source line (`run --lines`).
-- Takes a version-7 database forward in the same transaction that sets user_version;
-- schemas/store.sql creates the same tables in a new database.

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
