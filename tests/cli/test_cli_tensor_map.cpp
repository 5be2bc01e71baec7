// A user's TMA kernel (tests/data/source/tma): its CUtensorMap parameter given as a `tensor_map:`
// argument, predicted without a GPU from its PTX (the box copied through the map, swizzled, the
// mbarrier's phase, the read-back) and checked against its expected output.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_db.hpp"

using bb::test::query_text;
using bb::test::run_cli;

namespace {

const std::string k_tma_dir = BB_TEST_DATA "/source/tma";

// `run --backend model` of `files` into `db`, with no GPU and a compile cache in `tmp`.
bb::test::cli_result tensor_map_model_run(const bb::test::temp_dir& tmp, const std::string& db,
                                          const std::vector<std::string>& files) {
  std::string args = "--db '" + db + "' run --backend model";
  for (const auto& f : files) args += " '" + f + "'";
  return run_cli(args, "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" + (tmp.path / "cache").string() + "'");
}

// "variant status verified requests/wavefronts" of every configuration with GMMA requests, in order.
std::string tensor_map_gmma_lines(const std::string& db) {
  return query_text(db, "SELECT group_concat(line, '; ') FROM (SELECT c.variant || ' ' || c.status || ' ' || "
                        "c.verified_elements || ' ' || CAST(q.value AS INTEGER) || '/' || CAST(w.value AS INTEGER) AS "
                        "line FROM configurations c JOIN metrics q ON q.configuration_id = c.id AND q.name = "
                        "'gmma_requests' JOIN metrics w ON w.configuration_id = c.id AND w.name = 'gmma_wavefronts' "
                        "WHERE q.value > 0 ORDER BY c.id)");
}

TEST(cli_tensor_map, a_tma_kernel_is_predicted_and_its_output_checked_without_a_gpu) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "tma.sqlite").string();
  const auto r = tensor_map_model_run(tmp, db, {k_tma_dir + "/tma_box.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Both checked against the file (the output is the tensor), their expectations met.
  EXPECT_EQ(query_text(db, "SELECT group_concat(variant || ' ' || status || ' ' || verified_elements, ', ') FROM "
                           "(SELECT * FROM configurations ORDER BY seq)"),
            "source/none ok 2048, source/swizzled ok 2048");
  EXPECT_EQ(query_text(db, "SELECT group_concat(CAST(value AS INTEGER), ' ') FROM (SELECT value FROM metrics m JOIN "
                           "configurations c ON c.id = m.configuration_id WHERE m.name = 'lds_wavefronts' ORDER BY "
                           "c.seq)"),
            "512 64"); // 16 read-back requests: 32 wavefronts each unswizzled, 4 swizzled
}

TEST(cli_tensor_map, a_map_the_hardware_refuses_is_named_and_a_wrong_swizzle_fails_the_check) {
  bb::test::temp_dir tmp;
  std::ifstream in(k_tma_dir + "/tma_box.yaml");
  std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* f : {"tma_box.cu", "iota_2048.f32"}) std::filesystem::copy_file(k_tma_dir + "/" + f, tmp.path / f);
  // The swizzled kernel over an unswizzled map: its read-back undoes a swizzle that is not there.
  std::string wrong = yaml;
  wrong.replace(wrong.rfind("swizzle: 128B"), 13, "swizzle: none");
  std::ofstream(tmp.path / "wrong.yaml") << wrong;
  const auto db = (tmp.path / "w.sqlite").string();
  const auto r = tensor_map_model_run(tmp, db, {(tmp.path / "wrong.yaml").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(query_text(db, "SELECT status FROM configurations WHERE variant = 'source/swizzled'"), "wrong_result");
  // A box row that is not whole 16-byte chunks: refused, naming the rule, before the kernel runs.
  std::string odd = yaml;
  odd.replace(odd.find("box: [32, 32]"), 13, "box: [3, 32]");
  std::ofstream(tmp.path / "odd.yaml") << odd;
  const auto o = tensor_map_model_run(tmp, db, {(tmp.path / "odd.yaml").string()});
  EXPECT_NE(o.err.find("tensor map 'map': box[0] x 4 bytes = 12; TMA moves whole 16-byte chunks of the innermost "
                       "dimension"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(query_text(db, "SELECT status FROM configurations WHERE variant = 'source/none' AND run_id = 2"),
            "unsupported");
  // validate says it first, at the variant's line, with the usage exit code.
  const auto v = run_cli("validate '" + (tmp.path / "odd.yaml").string() + "'",
                         "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" + (tmp.path / "cache").string() + "'");
  EXPECT_EQ(v.exit_code, 2) << v.err;
  EXPECT_NE(v.err.find("odd.yaml:13: error: variants.none: tma_box/none: tensor map 'map': box[0] x 4 bytes = 12"),
            std::string::npos)
      << v.err;
}

} // namespace

// wgmma m64nNk16 for N = 32 .. 256 (tests/data/source/wgmma): each warp's GMMA request is its 16
// rows of A and a quarter of B's, 4 + N / 16 wavefronts in the 128B swizzle, the products checked
// against a plain loop in the emulation. An H100 measured the same (docs/measurements/2026-11-27-h100-wgmma-shapes.md).
TEST(cli_tensor_map, wgmma_of_every_n_reads_its_rows_of_a_and_a_quarter_of_b) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "w.sqlite").string();
  const auto r = tensor_map_model_run(tmp, db, {BB_TEST_DATA "/source/wgmma/wgmma_shapes.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_text(db, "SELECT group_concat(s, ', ') FROM (SELECT json_extract(c.params_json, '$.N') || ' ' || "
                           "c.status || ' ' || CAST(r.value AS INTEGER) || '/' || CAST(w.value AS INTEGER) s FROM "
                           "configurations c JOIN metrics r ON r.configuration_id = c.id AND r.name = 'gmma_requests' "
                           "JOIN metrics w ON w.configuration_id = c.id AND w.name = 'gmma_wavefronts' WHERE c.variant "
                           "= 'source/wgmma' ORDER BY c.seq)"),
            "32 ok 16/96, 64 ok 16/128, 128 ok 16/192, 256 ok 16/320");
}

// wgmma with A from registers (tests/data/source/wgmma/wgmma_rs.cu): each warp's GMMA request is
// its quarter of B alone, 4 wavefronts at N = 64 in the 128B swizzle; A's fragment as the PTX ISA
// gives it, the product checked against a plain loop. An H100 measured the same
// (docs/measurements/2026-11-27-h100-wgmma-rs.md).
TEST(cli_tensor_map, wgmma_with_a_in_registers_reads_a_quarter_of_b) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "rs.sqlite").string();
  const auto r = tensor_map_model_run(tmp, db, {BB_TEST_DATA "/source/wgmma/wgmma_rs.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_text(db, "SELECT c.status || ' ' || c.verified_elements || ' ' || CAST(q.value AS INTEGER) || '/' "
                           "|| CAST(w.value AS INTEGER) FROM configurations c JOIN metrics q ON q.configuration_id = "
                           "c.id AND q.name = 'gmma_requests' JOIN metrics w ON w.configuration_id = c.id AND w.name = "
                           "'gmma_wavefronts' WHERE c.variant = 'source/wgmma_rs'"),
            "ok 4096 16/64");
}

// wgmma beyond f16 x f16 (tests/data/source/wgmma/wgmma_types.cu): e4m3 (also with A from
// registers), e5m2 x e4m3 into f16 accumulators, tf32, f16 accumulators of f16, and s32 += s8 / u8
// (u8 with A from registers). Every form reads 32 bytes of each row of A and B, so the requests are
// those of f16: 8 wavefronts at N = 64 (4 with A in registers). Each product is checked against a
// plain loop whose fp8 values come through cvt.rn.f16x2.e4m3x2 / .e5m2x2 and whose integer sums
// through dp4a.
TEST(cli_tensor_map, wgmma_of_fp8_tf32_integers_and_f16_accumulators_reads_as_f16_does) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "types.sqlite").string();
  const std::string dir = BB_TEST_DATA "/source/wgmma/";
  const auto r = tensor_map_model_run(
      tmp, db, {dir + "wgmma_fp8.yaml", dir + "wgmma_tf32.yaml", dir + "wgmma_f16_acc.yaml", dir + "wgmma_int.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(tensor_map_gmma_lines(db),
            "source/e4m3 ok 4096 16/128; source/e4m3_rs ok 4096 16/64; source/e5m2_e4m3_f16 ok 4096 16/128; "
            "source/tf32 ok 4096 16/128; source/f16_f16 ok 4096 16/128; source/s8 ok 4096 16/128; "
            "source/s8_u8_sat ok 4096 16/128; source/u8_s8_rs ok 4096 16/64");
}

// wgmma with MN-major operands (tests/data/source/wgmma/wgmma_mn.cu, imm-trans 1): B alone in the
// 128B swizzle and interleaved, A and B in the 128B and 64B swizzles, each read through the PTX
// ISA's canonical MN-major layout (the products checked) as core matrices of 8 k rows of 16 bytes,
// one wavefront each: 8 a request at N = 64, as K-major.
TEST(cli_tensor_map, wgmma_with_mn_major_operands_reads_core_matrices_of_k_rows) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "mn.sqlite").string();
  const auto r = tensor_map_model_run(tmp, db, {BB_TEST_DATA "/source/wgmma/wgmma_mn.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(tensor_map_gmma_lines(db),
            "source/b_mn_128b ok 4096 16/128; source/b_mn_interleave ok 4096 16/128; source/ab_mn_128b ok 4096 "
            "16/128; source/ab_mn_64b ok 4096 16/128");
}

// wgmma for N that are not multiples of 32 (tests/data/source/wgmma/wgmma_narrow.cu, N = 8 to 176):
// every core matrix of A and B read once, 16 + N / 4 wavefronts a wgmma in 4 requests, as an H100
// counted them (docs/measurements/2026-11-27-h100-wgmma-types.md); the products checked.
TEST(cli_tensor_map, wgmma_of_narrow_n_reads_every_core_matrix_once) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "narrow.sqlite").string();
  const auto r = tensor_map_model_run(tmp, db, {BB_TEST_DATA "/source/wgmma/wgmma_narrow.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_text(db,
                       "SELECT group_concat(line, ' ') FROM (SELECT json_extract(c.params_json, '$.N') || ':' || "
                       "c.status || ':' || CAST(q.value AS INTEGER) || '/' || CAST(w.value AS INTEGER) AS line FROM "
                       "configurations c JOIN metrics q ON q.configuration_id = c.id AND q.name = 'gmma_requests' "
                       "JOIN metrics w ON w.configuration_id = c.id AND w.name = 'gmma_wavefronts' WHERE q.value > "
                       "0 ORDER BY c.id)"),
            "8:ok:16/72 16:ok:16/80 24:ok:16/88 40:ok:16/104 48:ok:16/112 80:ok:16/144 112:ok:16/176 176:ok:16/240");
}

// A warp-specialized kernel (tests/data/source/barriers/warp_specialized.cu): a producer warpgroup
// hands two shared tiles to a consumer warpgroup through named barriers (bar.arrive / bar.sync a,
// b), the consumers then synchronising alone on a barrier whose number and count are registers.
// The consumers run first in the interpreter, so only the barriers make the check pass; the read at
// a stride of 4 words takes 4 wavefronts a request.
TEST(cli_tensor_map, a_warp_specialized_kernel_waits_at_its_named_barriers) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "ws.sqlite").string();
  const auto r = tensor_map_model_run(tmp, db, {BB_TEST_DATA "/source/barriers/warp_specialized.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      query_text(
          db,
          "SELECT c.status || ' ' || c.verified_elements || ' ' || (SELECT group_concat(x, ' ') FROM (SELECT "
          "name || '=' || CAST(value AS INTEGER) AS x FROM metrics WHERE configuration_id = c.id AND name IN "
          "('lds_requests', 'lds_wavefronts', 'sts_requests', 'sts_wavefronts') ORDER BY name)) FROM configurations c "
          "WHERE c.variant = 'source/specialized'"),
      "ok 128 lds_requests=12 lds_wavefronts=24 sts_requests=12 sts_wavefronts=12");
}

// __syncthreads_count / _and / _or (bar.red, tests/data/source/barriers/sync_reduce.cu): the count
// of each block's positive inputs picks its tile's stride, so blocks 0 and 2 (136 and 140) store and
// load at 32 wavefronts a request and blocks 1 and 3 (137) at one: (2 x 8 x 32 + 2 x 8) = 528.
TEST(cli_tensor_map, syncthreads_count_and_or_decide_each_blocks_conflicts) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "red.sqlite").string();
  const auto r = tensor_map_model_run(tmp, db, {BB_TEST_DATA "/source/barriers/sync_reduce.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_text(db, "SELECT c.status || ' ' || c.verified_elements || ' ' || (SELECT group_concat(CAST(value AS "
                           "INTEGER), ' ') FROM (SELECT value FROM metrics WHERE configuration_id = c.id AND derived = "
                           "0 AND name NOT LIKE '%conflicts%' ORDER BY name)) FROM configurations c WHERE c.variant = "
                           "'source/reduced'"),
            "ok 1024 528 528 32 32");
}

// mma.sync, the warp-level MMA (tests/data/source/mma/mma_sync.cu): f16 into f32 through ldmatrix
// fragments, two m16n8k8 steps, f16 into f16, bf16, tf32 (rounded by cvt.rna.tf32.f32), s8 into s32
// and e4m3, each product checked against a plain loop; the ldmatrix loads of padded rows take one
// wavefront a matrix.
TEST(cli_tensor_map, mma_sync_of_every_type_computes_what_a_plain_loop_does) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "mma.sqlite").string();
  const std::string dir = BB_TEST_DATA "/source/mma/";
  const auto r = tensor_map_model_run(tmp, db,
                                      {dir + "mma_f16.yaml", dir + "mma_bf16.yaml", dir + "mma_tf32.yaml",
                                       dir + "mma_s8.yaml", dir + "mma_e4m3.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_text(db, "SELECT group_concat(variant || ' ' || status || ' ' || verified_elements, '; ') FROM "
                           "configurations WHERE variant NOT LIKE '%naive'"),
            "source/ldsm_f32 ok 128; source/k8_f32 ok 128; source/k16_f16 ok 128; source/k16_bf16 ok 128; "
            "source/k8_tf32 ok 128; source/k32_s8 ok 128; source/k32_e4m3 ok 128");
  EXPECT_EQ(query_text(db, "SELECT CAST(q.value AS INTEGER) || '/' || CAST(w.value AS INTEGER) FROM configurations c "
                           "JOIN metrics q ON q.configuration_id = c.id AND q.name = 'ldsm_requests' JOIN metrics w ON "
                           "w.configuration_id = c.id AND w.name = 'ldsm_wavefronts' WHERE c.variant = "
                           "'source/ldsm_f32'"),
            "2/6");
}

// TMA both ways (tests/data/source/tma/tma_round_trip.cu): a lane elect.sync picks loads the box
// through one map and stores it through another (a tensor map as an output: poisoned, then
// checked), every element plus one on the way.
TEST(cli_tensor_map, a_tma_store_through_an_output_map_is_checked) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "r.sqlite").string();
  const auto r = tensor_map_model_run(tmp, db, {k_tma_dir + "/tma_round_trip.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_text(db, "SELECT status || ' ' || verified_elements FROM configurations"), "ok 2048");
  EXPECT_EQ(query_text(db, "SELECT group_concat(name || '=' || CAST(value AS INTEGER), ' ') FROM (SELECT name, value "
                           "FROM metrics WHERE name IN ('lds_requests', 'lds_wavefronts', 'sts_requests', "
                           "'sts_wavefronts') ORDER BY name)"),
            "lds_requests=16 lds_wavefronts=512 sts_requests=16 sts_wavefronts=512");
}
