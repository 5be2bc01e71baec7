// `run --lines`: shared-memory wavefronts per SASS instruction and source line, collected in a
// process per configuration after the run, for built-in and source variants.
#include <string>
#include <vector>

#include "../cli/cli_db.hpp"
#include "gpu_test_util.hpp"

namespace {

using bb::test::query_column;
using bb::test::run_cli;
using bb::test::temp_dir;

std::string line_value(const std::string& db, const std::string& sql) {
  const auto v = query_column(db, sql);
  return v.size() == 1 ? v.front() : "(" + std::to_string(v.size()) + " rows)";
}

} // namespace

// Naive's column reads are 32-way conflicted (31 excess wavefronts per request) on one line of the
// family's header; padded has no excess anywhere. Every row has its file, line and opcode.
TEST(gpu_lines, builtin_transpose_conflicts_sit_on_the_column_read_line) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "l.sqlite").string();
  const auto r = run_cli("--db '" + db + "' run --lines '" BB_TEST_DATA "/lines/transpose_lines.yaml'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("[lines 2/2]"), std::string::npos) << r.err;
  EXPECT_EQ(line_value(db, "SELECT group_concat(status) FROM line_collections"), "ok,ok");
  const std::string naive = "(SELECT id FROM configurations WHERE variant = 'transpose/naive')";
  const std::string padded = "(SELECT id FROM configurations WHERE variant = 'transpose/padded')";
  // One line holds the naive kernel's excess: its loads from the tile, 31 excess per request.
  EXPECT_EQ(
      line_value(db, "SELECT count(DISTINCT line) FROM line_counters WHERE wavefronts > ideal AND configuration_id = " +
                         naive),
      "1");
  EXPECT_EQ(line_value(db, "SELECT DISTINCT kind FROM line_counters WHERE wavefronts > ideal AND configuration_id = " +
                               naive),
            "lds");
  EXPECT_EQ(
      line_value(db, "SELECT sum(wavefronts - ideal) / sum(executions) FROM line_counters WHERE wavefronts > ideal AND "
                     "configuration_id = " +
                         naive),
      "31");
  EXPECT_EQ(line_value(db, "SELECT sum(wavefronts - ideal) FROM line_counters WHERE configuration_id = " + padded),
            "0");
  EXPECT_EQ(line_value(db,
                       "SELECT count(*) FROM line_counters WHERE line = 0 OR file NOT LIKE '%kernels/transpose/%' OR "
                       "opcode = ''"),
            "0");
  // The per-line excess of naive against the range profiler's load conflicts of its counter pass
  // (another launch): within 1 % (arbitration with the kernel's own global traffic adds a little).
  const std::string lines_excess =
      "(SELECT sum(wavefronts - ideal) FROM line_counters WHERE configuration_id = " + naive + ")";
  const std::string hardware = "(SELECT value FROM metrics WHERE name = "
                               "'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum' AND configuration_id = " +
                               naive + ")";
  EXPECT_EQ(line_value(db, "SELECT abs(" + lines_excess + " - " + hardware + ") <= 0.01 * " + hardware), "1");
}

// A source variant (NVRTC, -lineinfo by default): the excess sits on the line of
// experiments/source/transpose.cu that reads the tile; --lines-for selects the configurations.
TEST(gpu_lines, source_variant_lines_point_into_the_users_file) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "s.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db +
                         "' run --samples 3 --lines-for 'naive' --lines-for 'n=1024' '" BB_SOURCE_DIR
                         "/experiments/source/transpose.yaml'");
  unsetenv("BB_CACHE_DIR");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // naive at both sizes, and every variant at n = 1024: 5 of the 8 configurations; direct has no
  // shared-memory instruction, so CUPTI gives no record for it.
  EXPECT_EQ(line_value(db, "SELECT group_concat(what, ', ') FROM (SELECT c.variant || ' ' || "
                           "json_extract(c.params_json, '$.n') || ' ' || l.status AS what FROM line_collections l "
                           "JOIN configurations c ON c.id = l.configuration_id ORDER BY c.seq)"),
            "source/direct 1024 no_records, source/naive 1024 ok, source/naive 4096 ok, source/padded 1024 ok, "
            "source/swizzled 1024 ok");
  EXPECT_EQ(line_value(db, "SELECT DISTINCT line FROM line_counters WHERE wavefronts > ideal"), "38");
  EXPECT_EQ(line_value(db, "SELECT count(*) FROM line_counters WHERE file NOT LIKE '%experiments/source/transpose.cu'"),
            "0");
}

// Two instances of one template, whose cubins CUPTI 13.0 gave one CRC: each configuration's lines
// come from its own kernel (the unpadded one's reference, the padded one, is loaded in the same
// process), with its source lines and opcodes.
TEST(gpu_lines, template_twins_keep_their_own_lines) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "t.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db + "' run --no-timing --lines '" BB_TEST_DATA "/emulate/twins.yaml'");
  unsetenv("BB_CACHE_DIR");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(line_value(db, "SELECT group_concat(status) FROM (SELECT l.status FROM line_collections l JOIN "
                           "configurations c ON c.id = l.configuration_id ORDER BY c.seq)"),
            "ok,ok");
  const std::string unpadded = "(SELECT id FROM configurations WHERE variant = 'source/unpadded')";
  // 4 blocks x 8 warps x 4 rows, each 32-way: 31 excess wavefronts per request, on the store line
  // (8) and the load line (10).
  EXPECT_EQ(line_value(db, "SELECT group_concat(line || ':' || excess) FROM (SELECT line, sum(wavefronts - ideal) AS "
                           "excess FROM line_counters WHERE configuration_id = " +
                               unpadded + " GROUP BY line ORDER BY line)"),
            "8:3968,10:3968");
  EXPECT_EQ(line_value(db, "SELECT count(*) FROM line_counters WHERE line = 0 OR opcode = ''"), "0");
}
