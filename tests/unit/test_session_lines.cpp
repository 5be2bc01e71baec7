// run --lines on the host side: which configurations --lines-for selects, nvdisasm's output read
// into opcodes, and CUPTI's per-instruction records turned into stored rows. The disassembly is
// nvdisasm 13.0's of a three-kernel file compiled for sm_90 (tests/data/lines/probe.nvdisasm.txt);
// the records carry the values CUPTI 13.0 gave for those kernels on an H100.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runner/session/lines_pass.hpp"

namespace {

using bb::session::lines_of;
using bb::session::lines_selected;
using bb::session::parse_disassembly;

bb::config::experiment experiment_named(const std::string& name) {
  bb::config::experiment e;
  e.name = name;
  e.family = "transpose";
  return e;
}

bb::config::configuration configuration_of(const std::string& variant, const nlohmann::json& params) {
  bb::config::configuration c;
  c.variant = variant;
  c.params = params;
  return c;
}

std::string disassembly() {
  std::ifstream in(BB_TEST_DATA "/lines/probe.nvdisasm.txt");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bb::profile::sass_record record(const std::string& function, std::uint32_t pc, const std::string& file, int line,
                                std::map<std::string, std::uint64_t> values) {
  bb::profile::sass_record r;
  r.function = function;
  r.pc = pc;
  r.file = file;
  r.line = line;
  r.values = std::move(values);
  return r;
}

} // namespace

TEST(session_lines, lines_for_selects_by_variant_experiment_and_parameter) {
  const auto e = experiment_named("transpose_tiles");
  const auto naive = configuration_of("naive", {{"n", 1024}, {"type", "float"}});
  const auto padded = configuration_of("padded", {{"n", 4096}, {"type", "double"}});
  EXPECT_TRUE(lines_selected({}, e, naive));
  EXPECT_TRUE(lines_selected({"naive"}, e, naive));
  EXPECT_FALSE(lines_selected({"naive"}, e, padded));
  EXPECT_TRUE(lines_selected({"transpose_*/pad*"}, e, padded));
  EXPECT_FALSE(lines_selected({"other/*"}, e, padded));
  EXPECT_TRUE(lines_selected({"n=1024"}, e, naive));
  EXPECT_FALSE(lines_selected({"n=1024"}, e, padded));
  EXPECT_TRUE(lines_selected({"type=doub*"}, e, padded));
  EXPECT_FALSE(lines_selected({"tile=32"}, e, naive)); // no such parameter
  EXPECT_TRUE(lines_selected({"tile=32", "naive"}, e, naive));
}

TEST(session_lines, nvdisasm_output_gives_each_instructions_opcode) {
  const auto ops = parse_disassembly(disassembly());
  EXPECT_EQ(ops.at({"_Z4histPj", 0x70}), "STS"); // after its predicate, @!P0
  EXPECT_EQ(ops.at({"_Z4histPj", 0x90}), "ATOMS.POPC.INC.32");
  EXPECT_EQ(ops.at({"_Z4histPj", 0xf0}), "LDS");
  EXPECT_EQ(ops.at({"_Z4ldsmPj", 0x180}), "LDSM.16.M88.4");
  EXPECT_EQ(ops.at({"_Z7two_wayPfi", 0x180}), "STS");
  EXPECT_EQ(ops.at({"_Z7two_wayPfi", 0x240}), "LDS");
  EXPECT_EQ(ops.count({"_Z7two_wayPfi", 0x0}), 1U);
  EXPECT_EQ(ops.count({"_Z7two_wayPfi", 0x8}), 0U);
}

TEST(session_lines, shared_memory_instructions_become_rows_with_their_kind_and_excess) {
  const std::string f = "/src/probe.cu";
  const std::vector<bb::profile::sass_record> records{
      record("_Z7two_wayPfi", 0x0, f, 17, {{"smsp__sass_inst_executed", 1024}}), // not shared memory: dropped
      record("_Z7two_wayPfi", 0x180, f, 18,
             {{"smsp__sass_inst_executed_op_shared", 1024},
              {"smsp__sass_inst_executed_op_shared_st", 1024},
              {"smsp__sass_thread_inst_executed_op_shared_pred_on", 32768},
              {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", 2048},
              {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal", 1024}}),
      record("_Z7two_wayPfi", 0x240, f, 21,
             {{"smsp__sass_inst_executed_op_shared", 1024},
              {"smsp__sass_inst_executed_op_shared_ld", 1024},
              {"smsp__sass_thread_inst_executed_op_shared_pred_on", 32768},
              {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", 2048},
              {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal", 1024}}),
      record("_Z4histPj", 0x90, "/cuda/include/crt/device_atomic_functions.hpp", 112,
             {{"smsp__sass_inst_executed_op_shared", 1024},
              {"smsp__sass_inst_executed_op_shared_atom", 1024},
              {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", 1024},
              {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal", 1024}}),
  };
  const auto lines = lines_of(records, parse_disassembly(disassembly()));
  EXPECT_EQ(lines.status, bb::store::lines_status::ok);
  EXPECT_EQ(lines.kernel, "_Z7two_wayPfi");
  ASSERT_EQ(lines.rows.size(), 3U);
  EXPECT_EQ(lines.rows[0].kind, "sts");
  EXPECT_EQ(lines.rows[0].opcode, "STS");
  EXPECT_EQ(lines.rows[0].threads, 32768U);
  EXPECT_EQ(lines.rows[0].excess(), 1024U);
  EXPECT_EQ(lines.rows[1].kind, "lds");
  EXPECT_EQ(lines.rows[1].line, 21);
  EXPECT_EQ(lines.rows[2].kind, "atoms");
  EXPECT_EQ(lines.rows[2].opcode, "ATOMS.POPC.INC.32");
  EXPECT_EQ(lines.rows[2].excess(), 0U);
}

TEST(session_lines, records_without_lines_or_at_all_say_so) {
  EXPECT_EQ(lines_of({}, {}).status, bb::store::lines_status::no_records);
  const auto no_lines = lines_of({record("k", 0x10, "", 0,
                                         {{"smsp__sass_inst_executed_op_shared", 8},
                                          {"smsp__sass_inst_executed_op_shared_ld", 8},
                                          {"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", 8}})},
                                 {});
  EXPECT_EQ(no_lines.status, bb::store::lines_status::no_line_info);
  EXPECT_NE(no_lines.note.find("-lineinfo"), std::string::npos);
  EXPECT_EQ(no_lines.rows.size(), 1U);
  const auto none = lines_of({record("k", 0x10, "/a.cu", 3, {{"smsp__sass_inst_executed", 8}})}, {});
  EXPECT_EQ(none.status, bb::store::lines_status::ok);
  EXPECT_TRUE(none.rows.empty());
  EXPECT_EQ(none.note, "the kernel executed no shared-memory instruction");
}
