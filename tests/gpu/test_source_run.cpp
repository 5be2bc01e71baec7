// `bankbench run` on the example source experiments: compiled at run time, measured, checked,
// stored; unverified where there is no check; compile key and time in each configuration's row.
#include <sqlite3.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "../cli/cli_db.hpp"
#include "gpu_test_util.hpp"

namespace {

using bb::test::run_cli;
using bb::test::temp_dir;

using bb::test::query_column;

/// "variant status verified requests/wavefronts" of each configuration with GMMA requests, in order.
std::vector<std::string> gmma_rows(const std::string& db) {
  return query_column(db, "SELECT c.variant || ' ' || c.status || ' ' || c.verified_elements || ' ' || CAST(q.value "
                          "AS INTEGER) || '/' || CAST(w.value AS INTEGER) FROM configurations c JOIN metrics q ON "
                          "q.configuration_id = c.id AND q.name = 'gmma_requests' JOIN metrics w ON "
                          "w.configuration_id = c.id AND w.name = 'gmma_wavefronts' WHERE q.value > 0 ORDER BY c.id");
}

} // namespace

TEST(gpu_source_run, examples_run_with_their_expectations_and_record_compile_keys) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "s.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const std::string cmd = "--db '" + db + "' -q run --samples 3 '" BB_SOURCE_DIR "/experiments/source'";
  const auto r = run_cli(cmd);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto statuses = query_column(db, "SELECT variant || ' ' || status FROM configurations ORDER BY run_id, seq");
  const std::vector<std::string> want = {"source/one_copy ok",       "source/eight_copies ok",
                                         "source/direct unverified", "source/direct unverified",
                                         "source/naive ok",          "source/naive ok",
                                         "source/padded ok",         "source/padded ok",
                                         "source/swizzled ok",       "source/swizzled ok"};
  EXPECT_EQ(statuses, want);
  EXPECT_EQ(query_column(db, "SELECT count(*) FROM configurations WHERE length(compile_key) = 64 AND compile_ms >= 0"),
            std::vector<std::string>{"10"});
  EXPECT_EQ(query_column(db, "SELECT count(*) FROM expectations WHERE passed = 0"), std::vector<std::string>{"0"});
  EXPECT_EQ(query_column(db, "SELECT count(*) FROM expectations"),
            std::vector<std::string>{"14"}); // histogram 2, transpose 2 + 4 + 6

  // Again: every kernel comes from the cache.
  const auto again = run_cli(cmd);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  // The second session's ten configurations (two experiments, so two runs of one session).
  EXPECT_EQ(query_column(db,
                         "SELECT count(*) FROM configurations WHERE compile_ms = 0 AND run_id IN (SELECT id FROM runs "
                         "WHERE session_id = (SELECT max(session_id) FROM runs))"),
            std::vector<std::string>{"10"});
  unsetenv("BB_CACHE_DIR");
}

// Kernels as written for nvcc: standard headers through NVRTC's layer, and <cub/cub.cuh>
// through nvcc; the CUB block sum checked against the plain one; the compiler in each row.
TEST(gpu_source_run, standard_headers_and_cub_run_and_record_their_compiler) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "r.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db + "' -q run --samples 3 '" BB_TEST_DATA "/source/validate/real_kernels.yaml'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(query_column(db, "SELECT variant || ' ' || status || ' ' || substr(compiler, 1, 5) || ' ' || "
                             "substr(compile_options, 1, 13) FROM configurations ORDER BY seq"),
            (std::vector<std::string>{"source/plain unverified nvrtc --gpu-archite",
                                      "source/cub ok nvcc  -arch=sm_90 -"}));
  unsetenv("BB_CACHE_DIR");
}

// A user's TMA kernel: the CUtensorMap of its `tensor_map:` argument encoded by the driver, the box
// loaded, swizzled and read back (the output checked against the tensor), and its read-back's
// wavefronts those the model predicts from its PTX (tests/cli/test_cli_tensor_map.cpp: 512 and 64).
TEST(gpu_source_run, a_tma_kernel_runs_through_its_tensor_map_and_measures_what_the_model_predicts) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "t.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db + "' -q run --samples 3 '" BB_TEST_DATA "/source/tma/tma_box.yaml'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(query_column(db, "SELECT variant || ' ' || status || ' ' || verified_elements FROM configurations ORDER BY "
                             "seq"),
            (std::vector<std::string>{"source/none ok 2048", "source/swizzled ok 2048"}));
  EXPECT_EQ(query_column(db, "SELECT CAST(value AS INTEGER) FROM metrics m JOIN configurations c ON c.id = "
                             "m.configuration_id WHERE m.name = 'lds_wavefronts' ORDER BY c.seq"),
            (std::vector<std::string>{"512", "64"}));
  EXPECT_EQ(query_column(db, "SELECT count(*) FROM expectations WHERE passed = 1"), std::vector<std::string>{"2"});
  unsetenv("BB_CACHE_DIR");
}

// wgmma m64nNk16 for N = 32 .. 256 (sm_90a): checked against a plain product, and 4 GMMA requests per
// wgmma of 4 + N / 16 wavefronts, as the model predicts (tests/cli/test_cli_tensor_map.cpp).
TEST(gpu_source_run, wgmma_of_every_n_measures_what_the_model_predicts) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "w.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db + "' -q run --no-timing '" BB_TEST_DATA "/source/wgmma/wgmma_shapes.yaml'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(query_column(db, "SELECT json_extract(c.params_json, '$.N') || ' ' || c.status || ' ' || CAST(q.value AS "
                             "INTEGER) || '/' || CAST(w.value AS INTEGER) FROM configurations c JOIN metrics q ON "
                             "q.configuration_id = c.id AND q.name = 'gmma_requests' JOIN metrics w ON "
                             "w.configuration_id = c.id AND w.name = 'gmma_wavefronts' WHERE c.variant = "
                             "'source/wgmma' ORDER BY c.seq"),
            (std::vector<std::string>{"32 ok 16/96", "64 ok 16/128", "128 ok 16/192", "256 ok 16/320"}));
  unsetenv("BB_CACHE_DIR");
}

// wgmma with A from registers (sm_90a): checked against a plain product, so the A fragment the
// kernel builds is the hardware's, and 4 GMMA requests per wgmma of B's quarter alone, 4
// wavefronts each, as the model predicts (tests/cli/test_cli_tensor_map.cpp).
TEST(gpu_source_run, wgmma_with_a_in_registers_measures_what_the_model_predicts) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "rs.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db + "' -q run --no-timing '" BB_TEST_DATA "/source/wgmma/wgmma_rs.yaml'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(query_column(db, "SELECT c.status || ' ' || c.verified_elements || ' ' || CAST(q.value AS INTEGER) || '/' "
                             "|| CAST(w.value AS INTEGER) FROM configurations c JOIN metrics q ON q.configuration_id "
                             "= c.id AND q.name = 'gmma_requests' JOIN metrics w ON w.configuration_id = c.id AND "
                             "w.name = 'gmma_wavefronts' WHERE c.variant = 'source/wgmma_rs'"),
            std::vector<std::string>{"ok 4096 16/64"});
  unsetenv("BB_CACHE_DIR");
}

// wgmma with fp8 (e4m3; e5m2 x e4m3 into f16 accumulators; e4m3 with A from registers), tf32 and
// f16 accumulators (sm_90a): each product checked against a plain loop, so the operand types, the
// 8-bit A fragment and the f16 accumulator fragment are the hardware's, and the GMMA requests
// those the model predicts (tests/cli/test_cli_tensor_map.cpp).
TEST(gpu_source_run, wgmma_of_fp8_tf32_and_f16_accumulators_measures_what_the_model_predicts) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "types.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const std::string dir = BB_TEST_DATA "/source/wgmma/";
  const auto r = run_cli("--db '" + db + "' -q run --no-timing '" + dir + "wgmma_fp8.yaml' '" + dir +
                         "wgmma_tf32.yaml' '" + dir + "wgmma_f16_acc.yaml'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(query_column(db,
                         "SELECT c.variant || ' ' || c.status || ' ' || c.verified_elements || ' ' || "
                         "CAST(q.value AS INTEGER) || '/' || CAST(w.value AS INTEGER) FROM configurations c JOIN "
                         "metrics q ON q.configuration_id = c.id AND q.name = 'gmma_requests' JOIN metrics w ON "
                         "w.configuration_id = c.id AND w.name = 'gmma_wavefronts' WHERE q.value > 0 ORDER BY c.id"),
            (std::vector<std::string>{"source/e4m3 ok 4096 16/128", "source/e4m3_rs ok 4096 16/64",
                                      "source/e5m2_e4m3_f16 ok 4096 16/128", "source/tf32 ok 4096 16/128",
                                      "source/f16_f16 ok 4096 16/128"}));
  unsetenv("BB_CACHE_DIR");
}

// wgmma of 8-bit integers into s32 (s8 x s8; s8 x u8 with .satfinite; u8 x s8 with A from
// registers): each product checked against a plain loop (dp4a), and the GMMA requests the model
// predicts (tests/cli/test_cli_tensor_map.cpp): those of the fp8 forms, which read the same 32
// bytes of each row.
TEST(gpu_source_run, wgmma_of_8_bit_integers_measures_what_the_model_predicts) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "int.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db + "' -q run --no-timing '" BB_TEST_DATA "/source/wgmma/wgmma_int.yaml'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(gmma_rows(db), (std::vector<std::string>{"source/s8 ok 4096 16/128", "source/s8_u8_sat ok 4096 16/128",
                                                     "source/u8_s8_rs ok 4096 16/64"}));
  unsetenv("BB_CACHE_DIR");
}

// wgmma with MN-major operands (imm-trans 1) in the canonical layouts (sm_90a): B alone in the 128B
// swizzle and interleaved, A and B in the 128B and 64B swizzles; each product checked against a
// plain loop, so the layouts are the hardware's, and the GMMA requests those the model predicts
// (tests/cli/test_cli_tensor_map.cpp).
TEST(gpu_source_run, wgmma_with_mn_major_operands_measures_what_the_model_predicts) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "mn.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db + "' -q run --no-timing '" BB_TEST_DATA "/source/wgmma/wgmma_mn.yaml'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(query_column(db,
                         "SELECT c.variant || ' ' || c.status || ' ' || c.verified_elements || ' ' || "
                         "CAST(q.value AS INTEGER) || '/' || CAST(w.value AS INTEGER) FROM configurations c JOIN "
                         "metrics q ON q.configuration_id = c.id AND q.name = 'gmma_requests' JOIN metrics w ON "
                         "w.configuration_id = c.id AND w.name = 'gmma_wavefronts' WHERE q.value > 0 ORDER BY c.id"),
            (std::vector<std::string>{"source/b_mn_128b ok 4096 16/128", "source/b_mn_interleave ok 4096 16/128",
                                      "source/ab_mn_128b ok 4096 16/128", "source/ab_mn_64b ok 4096 16/128"}));
  unsetenv("BB_CACHE_DIR");
}

// wgmma for N that are not multiples of 32 (sm_90a, N = 8 to 176): each product checked against a
// plain loop, and 16 + N / 4 wavefronts a wgmma in 4 requests, as the model predicts
// (tests/cli/test_cli_tensor_map.cpp).
TEST(gpu_source_run, wgmma_of_narrow_n_measures_what_the_model_predicts) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "narrow.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db + "' -q run --no-timing '" BB_TEST_DATA "/source/wgmma/wgmma_narrow.yaml'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(query_column(db,
                         "SELECT json_extract(c.params_json, '$.N') || ':' || c.status || ':' || CAST(q.value AS "
                         "INTEGER) || '/' || CAST(w.value AS INTEGER) FROM configurations c JOIN metrics q ON "
                         "q.configuration_id = c.id AND q.name = 'gmma_requests' JOIN metrics w ON "
                         "w.configuration_id = c.id AND w.name = 'gmma_wavefronts' WHERE q.value > 0 ORDER BY c.id"),
            (std::vector<std::string>{"8:ok:16/72", "16:ok:16/80", "24:ok:16/88", "40:ok:16/104", "48:ok:16/112",
                                      "80:ok:16/144", "112:ok:16/176", "176:ok:16/240"}));
  unsetenv("BB_CACHE_DIR");
}

// A warp-specialized kernel synchronised by named barriers: checked on the GPU, and the loads and
// stores the model predicts (tests/cli/test_cli_tensor_map.cpp).
TEST(gpu_source_run, a_warp_specialized_kernel_measures_what_the_model_predicts) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "ws.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db +
                         "' -q run --no-timing '" BB_TEST_DATA "/source/barriers/warp_specialized.yaml'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(
      query_column(
          db,
          "SELECT c.status || ' ' || c.verified_elements || ' ' || (SELECT group_concat(x, ' ') FROM (SELECT "
          "name || '=' || CAST(value AS INTEGER) AS x FROM metrics WHERE configuration_id = c.id AND name IN "
          "('lds_requests', 'lds_wavefronts', 'sts_requests', 'sts_wavefronts') ORDER BY name)) FROM configurations c "
          "WHERE c.variant = 'source/specialized'"),
      std::vector<std::string>{"ok 128 lds_requests=12 lds_wavefronts=24 sts_requests=12 sts_wavefronts=12"});
  unsetenv("BB_CACHE_DIR");
}

// __syncthreads_count / _and / _or (bar.red): checked on the GPU against plain loops, and the
// stores and loads whose stride the count picks, as the model predicts them
// (tests/cli/test_cli_tensor_map.cpp).
TEST(gpu_source_run, syncthreads_count_and_or_measure_what_the_model_predicts) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "red.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db + "' -q run --no-timing '" BB_TEST_DATA "/source/barriers/sync_reduce.yaml'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // wavefronts (ld, st), then requests (ld, st), by name
  EXPECT_EQ(query_column(db, "SELECT c.status || ' ' || c.verified_elements || ' ' || (SELECT group_concat(CAST(value "
                             "AS INTEGER), ' ') FROM (SELECT value FROM metrics WHERE configuration_id = c.id AND "
                             "derived = 0 AND name NOT LIKE '%conflicts%' AND name NOT LIKE 'gpu__time%' ORDER BY "
                             "name)) FROM configurations c WHERE c.variant = 'source/reduced'"),
            std::vector<std::string>{"ok 1024 528 528 32 32"});
  unsetenv("BB_CACHE_DIR");
}

// mma.sync of every type the model follows, checked on the GPU against plain loops (so the
// fragments are the hardware's), and the ldmatrix loads the model predicts
// (tests/cli/test_cli_tensor_map.cpp).
TEST(gpu_source_run, mma_sync_of_every_type_checks_and_measures_what_the_model_predicts) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "mma.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const std::string dir = BB_TEST_DATA "/source/mma/";
  const auto r = run_cli("--db '" + db + "' -q run --no-timing '" + dir + "mma_f16.yaml' '" + dir + "mma_bf16.yaml' '" +
                         dir + "mma_tf32.yaml' '" + dir + "mma_s8.yaml' '" + dir + "mma_e4m3.yaml'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(query_column(db, "SELECT variant || ' ' || status || ' ' || verified_elements FROM configurations WHERE "
                             "variant NOT LIKE '%naive' ORDER BY id"),
            (std::vector<std::string>{"source/ldsm_f32 ok 128", "source/k8_f32 ok 128", "source/k16_f16 ok 128",
                                      "source/k16_bf16 ok 128", "source/k8_tf32 ok 128", "source/k32_s8 ok 128",
                                      "source/k32_e4m3 ok 128"}));
  EXPECT_EQ(query_column(db, "SELECT CAST(q.value AS INTEGER) || '/' || CAST(w.value AS INTEGER) FROM configurations "
                             "c JOIN metrics q ON q.configuration_id = c.id AND q.name = 'ldsm_requests' JOIN metrics "
                             "w ON w.configuration_id = c.id AND w.name = 'ldsm_wavefronts' WHERE c.variant = "
                             "'source/ldsm_f32'"),
            std::vector<std::string>{"2/6"});
  unsetenv("BB_CACHE_DIR");
}

// TMA both ways through two tensor maps, the copies issued by the lane elect.sync picks: the output
// map's tensor checked, the row updates' counters those the model predicts
// (tests/cli/test_cli_tensor_map.cpp).
TEST(gpu_source_run, a_tma_store_through_an_output_map_is_checked_and_measures_what_the_model_predicts) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "r.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db + "' -q run --no-timing '" BB_TEST_DATA "/source/tma/tma_round_trip.yaml'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(query_column(db, "SELECT status || ' ' || verified_elements FROM configurations"),
            std::vector<std::string>{"ok 2048"});
  EXPECT_EQ(query_column(db, "SELECT name || '=' || CAST(value AS INTEGER) FROM metrics WHERE name IN "
                             "('lds_requests', 'lds_wavefronts', 'sts_requests', 'sts_wavefronts') ORDER BY name"),
            (std::vector<std::string>{"lds_requests=16", "lds_wavefronts=512", "sts_requests=16",
                                      "sts_wavefronts=512"}));
  unsetenv("BB_CACHE_DIR");
}
