// `run --backend model --model-source code`: built-in variants predicted from their family's own
// kernel code through its code twin (bench/code_twins), with per-line rows; a variant or a family
// without a twin, or a parameter the twin fixes, predicted from its access plan with the reason.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli_db.hpp"

namespace {

using bb::test::exec_sql;
using bb::test::query_text;
using bb::test::run_cli;

// naive and padded_wide follow the twin at float and double (n = 256: 64 blocks of 32 x 8 threads);
// a twin written for float alone (its type fixed) sends double to the plans.
const char* const k_transpose_code_yaml = R"(name: transpose_code_cli
description: the transpose's naive and padded_wide kernels from their code
family: transpose
variants: [naive, padded_wide]
axes:
  n: [256]
  type: [float, double]
metrics: bank_conflicts
)";

TEST(cli_model_code, the_transpose_kernel_is_predicted_from_its_code_with_its_lines) {
  bb::test::temp_dir tmp;
  const auto yaml = tmp.path / "transpose_code.yaml";
  std::ofstream(yaml) << k_transpose_code_yaml;
  const auto db = (tmp.path / "code.sqlite").string();
  const std::string env = "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" BB_TWIN_CACHE "'";
  const auto code = run_cli("--db '" + db + "' run --backend model --model-source code '" + yaml.string() + "'", env);
  ASSERT_EQ(code.exit_code, 0) << code.err;
  EXPECT_NE(code.err.find("transpose_code_cli: 4 built-in configurations predicted from their code, 0 from access "
                          "plans"),
            std::string::npos)
      << code.err;
  const auto plan = run_cli("--db '" + db + "' run --backend model '" + yaml.string() + "'", env);
  ASSERT_EQ(plan.exit_code, 0) << plan.err;

  // Every counter of naive at float equal to its plan's: 2048 column reads of 32 wavefronts each.
  const std::string naive_float = "c.variant = 'transpose/naive' AND c.params_json LIKE '%\"float\"%'";
  const auto counter = [&](int run, const char* name) {
    return query_text(db, "SELECT m.value FROM metrics m JOIN configurations c ON c.id = m.configuration_id "
                          "WHERE c.run_id = " +
                              std::to_string(run) + " AND " + naive_float + " AND m.name = '" + name + "'");
  };
  for (const char* name :
       {"smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"}) {
    EXPECT_FALSE(counter(1, name).empty()) << name;
    EXPECT_EQ(counter(1, name), counter(2, name)) << name;
  }
  EXPECT_EQ(counter(1, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), "65536.0");
  EXPECT_EQ(query_text(db, "SELECT status || ': ' || reason FROM configurations c WHERE run_id = 1 AND " + naive_float),
            "unverified: predicted from its code (the PTX of naive of code twin bench/code_twins/transpose.yaml); "
            "outputs not checked: the variant has no check");
  EXPECT_EQ(query_text(db, "SELECT status || ': ' || reason FROM configurations WHERE run_id = 1 AND variant "
                           "= 'transpose/padded_wide' AND params_json LIKE '%\"double\"%'"),
            "unverified: predicted from its code (the PTX of padded_wide of code twin "
            "bench/code_twins/transpose.yaml); outputs not checked: the variant has no check");

  // Its per-line rows name the family's own lines; `lines` shows them, the column read first.
  const auto lines = run_cli("--db '" + db + "' lines 1 --variant naive -p type=float");
  ASSERT_EQ(lines.exit_code, 0) << lines.err;
  EXPECT_NE(lines.out.find("note: predicted from the PTX of naive of code twin bench/code_twins/transpose.yaml: all "
                           "64 blocks run"),
            std::string::npos)
      << lines.out;
  const auto read = lines.out.find("   1  kernels/transpose/kernel.cuh:42");
  const auto write = lines.out.find("   2  kernels/transpose/kernel.cuh:33");
  EXPECT_NE(read, std::string::npos) << lines.out;
  EXPECT_NE(write, std::string::npos) << lines.out;
  EXPECT_NE(lines.out.find("lds          2048       65536   2048   63488  100.0%", read), std::string::npos)
      << lines.out;

  // A GPU's lines of the built-in kernel name its anonymous namespace after the file bankbench built
  // it from, the twin's after its own: compare matches them as one function.
  ASSERT_EQ(run_cli("--db '" + db + "' run --backend model --model-source code '" + yaml.string() + "'", env).exit_code,
            0);
  const std::string builtin_name = "_ZN2bb9transpose16transpose_kernelINS0_46_GLOBAL__N__cb580df3_8_naive_cu_"
                                   "f9ae69be_3145312naive_layoutILi32EEEfLi32ELi8EEEvPKT0_PS5_i";
  exec_sql(db, "UPDATE line_counters SET function = '" + builtin_name +
                   "' WHERE configuration_id IN (SELECT id FROM configurations c WHERE run_id = 3 AND " + naive_float +
                   ")");
  EXPECT_EQ(query_text(db, "SELECT count(DISTINCT function) FROM line_counters WHERE configuration_id IN (SELECT id "
                           "FROM configurations c WHERE " +
                               naive_float + ")"),
            "2");
  const auto compared = run_cli("--db '" + db + "' compare runs 1 3 --lines");
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  // Both sides' excess on one row (a line of one side only would show "-" on the other).
  EXPECT_NE(compared.out.find("kernel.cuh:42  out[static_cast<std::size_t>(y + j) * n + x + i...  ld.shared.f32 x4     "
                              "63488     63488               31               31"),
            std::string::npos)
      << compared.out;
}

// A double column read of double[32][33]: conflict-free at its 8-byte ideal of 2 wavefronts a
// request, measured against the width the family declares (8 bytes), not the twin's file's (4).
TEST(cli_model_code, the_ideal_is_the_families_access_width) {
  bb::test::temp_dir tmp;
  const auto yaml = tmp.path / "padding_code.yaml";
  std::ofstream(yaml) << "name: padding_code_cli\ndescription: double[32][33] from its code\nfamily: padding\n"
                         "variants: [column_read]\naxes: {type: [double], cols: [32], pitch: [33], batch: [4]}\n";
  const auto db = (tmp.path / "padding.sqlite").string();
  const auto r = run_cli("--db '" + db + "' run --backend model --model-source code '" + yaml.string() + "'",
                         "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" BB_TWIN_CACHE "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_text(db, "SELECT smem_access_bytes || ' ' || substr(reason, 1, 23) FROM configurations"),
            "8 predicted from its code");
  const auto derived = [&](const char* name) {
    return query_text(db, std::string("SELECT value FROM metrics WHERE derived = 1 AND name = '") + name + "'");
  };
  EXPECT_EQ(derived("load_wavefronts_per_request"), "2.0");
  EXPECT_EQ(derived("load_excess_wavefronts_per_request"), "0.0");
}

TEST(cli_model_code, a_family_without_a_twin_is_predicted_from_its_plans_and_says_why) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "tma.sqlite").string();
  const auto twins = tmp.path / "twins"; // a folder of twins without tma's
  std::filesystem::create_directories(twins);
  const auto r = run_cli("--db '" + db + "' run --backend model --model-source code --code-twins '" + twins.string() +
                             "' experiments/tma",
                         "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" BB_TWIN_CACHE "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_text(db, "SELECT status || ': ' || reason FROM configurations WHERE variant = "
                           "'tma/sw128' ORDER BY seq LIMIT 1"),
            "ok: predicted from its access plan, not from its code: family tma has no code twin (" + twins.string() +
                "/tma.yaml not found)");
  EXPECT_EQ(query_text(db, "SELECT count(*) FROM line_collections"), "0");
  EXPECT_NE(r.err.find("tma: 0 built-in configurations predicted from their code, 6 from access plans"),
            std::string::npos)
      << r.err;

  // A variant its family's twin lacks and with no plan either: not_modelled, saying both.
  const auto reference = (tmp.path / "reference.sqlite").string();
  const auto lacking = run_cli("--db '" + reference + "' run --backend model --model-source code experiments/reference",
                               "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" BB_TWIN_CACHE "'");
  ASSERT_EQ(lacking.exit_code, 0) << lacking.err;
  EXPECT_EQ(query_text(reference, "SELECT status || ': ' || reason FROM configurations WHERE variant = "
                                  "'reference/memcpy' ORDER BY seq LIMIT 1"),
            "not_modelled: reference/memcpy has no access plan: measure it on a GPU; not from its code: its code "
            "twin bench/code_twins/reference.yaml has no variant memcpy");
  EXPECT_EQ(query_text(reference, "SELECT count(*) || ' ' || min(load_requests + store_requests) FROM (SELECT (SELECT "
                                  "value FROM metrics WHERE configuration_id = c.id AND name = 'load_requests') "
                                  "load_requests, (SELECT value FROM metrics WHERE configuration_id = c.id AND name = "
                                  "'store_requests') store_requests FROM configurations c WHERE variant = "
                                  "'reference/copy' AND reason LIKE 'predicted from its code%')"),
            "2 0.0");

  // --code-twins naming what is not a folder is refused once, before anything is predicted.
  const auto elsewhere = run_cli("--db '" + db + "' run --backend model --model-source code --code-twins '" +
                                 tmp.path.string() + "/none' experiments/tma");
  EXPECT_EQ(elsewhere.exit_code, 2) << elsewhere.err;
  EXPECT_NE(elsewhere.err.find("--code-twins " + tmp.path.string() + "/none: no such folder"), std::string::npos)
      << elsewhere.err;
  const auto file = run_cli("--db '" + db + "' run --backend model --model-source code --code-twins '" + db +
                            "' experiments/tma");
  EXPECT_EQ(file.exit_code, 2) << file.err;
  EXPECT_NE(file.err.find(" is a file; it names the folder that holds the twins"), std::string::npos) << file.err;
  const auto empty = run_cli("--db '" + db +
                             "' run --backend model --model-source code --code-twins '' "
                             "experiments/tma");
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  EXPECT_NE(empty.err.find("--code-twins"), std::string::npos) << empty.err;
}

TEST(cli_model_code, an_unknown_model_source_is_refused) {
  const auto r = run_cli("run --backend model --model-source ptx experiments/reference");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--model-source must be one of plan, code, got 'ptx'"), std::string::npos) << r.err;
}

} // namespace

namespace {

// The stride family's twin compiles stride_kernel<width> of one file: the five widths are one nvcc
// run before any prediction, and predictions on one thread or two store the same rows in order.
TEST(cli_model_code, a_twins_instances_are_one_nvcc_run_and_threads_change_no_row) {
  bb::test::temp_dir tmp;
  const std::string yaml = std::string(BB_SOURCE_DIR) + "/experiments/stride/broadcast.yaml";
  const std::string env = "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" + (tmp.path / "cache").string() + "'";
  const auto one = (tmp.path / "one.sqlite").string(), two = (tmp.path / "two.sqlite").string();
  const auto cold = run_cli("--db '" + two + "' run --backend model --model-source code -j 2 '" + yaml + "'", env);
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  EXPECT_NE(cold.err.find("5 code twin kernels for sm_90 in "), std::string::npos) << cold.err;
  EXPECT_NE(cold.err.find("(1 nvcc run): 5 compiled, 0 from the cache"), std::string::npos) << cold.err;
  EXPECT_NE(cold.err.find("stride_broadcast: 5 built-in configurations predicted from their code, 0 from access plans"),
            std::string::npos)
      << cold.err;
  const auto serial = run_cli("--db '" + one + "' run --backend model --model-source code -j 1 '" + yaml + "'", env);
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  const std::string rows = "SELECT c.seq, c.variant, c.params_json, c.status, m.name, m.value FROM metrics m JOIN "
                           "configurations c ON c.id = m.configuration_id ORDER BY c.seq, m.name";
  const std::string lines = "SELECT c.seq, l.file, l.line, l.executions, l.wavefronts, l.ideal FROM line_counters l "
                            "JOIN configurations c ON c.id = l.configuration_id ORDER BY c.seq, l.pc";
  EXPECT_FALSE(query_text(two, rows).empty());
  EXPECT_EQ(query_text(one, rows), query_text(two, rows));
  EXPECT_FALSE(query_text(two, lines).empty());
  EXPECT_EQ(query_text(one, lines), query_text(two, lines));
  // Every block of the broadcast kernel makes the same requests: one block ran, exactly.
  EXPECT_NE(query_text(two, "SELECT note FROM line_collections LIMIT 1")
                .find("the PTX shows every block makes the "
                      "same shared-memory requests"),
            std::string::npos);
}

} // namespace

namespace {

// A twin that does not sweep a family parameter has it fixed in its kernel: configurations at
// another value go to their plans, saying so (here a transpose twin written for float alone).
TEST(cli_model_code, a_parameter_its_twin_fixes_sends_other_values_to_the_plans) {
  bb::test::temp_dir tmp;
  const auto yaml = tmp.path / "transpose_code.yaml";
  std::ofstream(yaml) << k_transpose_code_yaml;
  const std::string src = BB_SOURCE_DIR;
  std::filesystem::create_directories(tmp.path / "twins");
  std::ofstream(tmp.path / "twins" / "transpose.yaml")
      << "name: transpose_float\n"
         "description: the naive transpose for float alone\n"
         "source:\n"
         "  file: "
      << src << "/kernels/transpose/kernel.cuh\n  include: [" << src
      << "]\n"
         "  compiler: nvcc\n"
         "  grid: ceil_div(n, tile), ceil_div(n, tile)\n"
         "  block: min(tile, 32), block_rows\n"
         "  args:\n"
         "    - {buffer: in, type: float, count: n * n, init: uniform}\n"
         "    - {buffer: out, type: float, count: n * n, output: true}\n"
         "    - {scalar: n, type: int32}\n"
         "variants:\n"
         "  - {name: naive, kernel: \"bb::transpose::transpose_kernel<bb::transpose::naive_layout<tile>, float, "
         "tile, block_rows>\"}\n"
         "axes: {n: [256], tile: [32], block_rows: [8]}\n";
  const auto db = (tmp.path / "fixed.sqlite").string();
  const std::string env = "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" BB_TWIN_CACHE "'";
  const auto r = run_cli("--db '" + db + "' run --backend model --model-source code --code-twins '" +
                             (tmp.path / "twins").string() + "' '" + yaml.string() + "'",
                         env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("transpose_code_cli: 1 built-in configuration predicted from their code, 3 from access plans"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("transpose.yaml has no variant padded_wide"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("transpose.yaml has type fixed at the family's default float, not double"), std::string::npos)
      << r.err;
}

} // namespace
