// A user's TMA kernel (tests/data/source/tma): its CUtensorMap parameter given as a `tensor_map:`
// argument, predicted without a GPU from its PTX (the box copied through the map, swizzled, the
// mbarrier's phase, the read-back) and checked against its expected output.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli_db.hpp"

using bb::test::query_text;
using bb::test::run_cli;

namespace {

const std::string k_dir = BB_TEST_DATA "/source/tma";

TEST(cli_tensor_map, a_tma_kernel_is_predicted_and_its_output_checked_without_a_gpu) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "tma.sqlite").string();
  const auto r = run_cli("--db '" + db + "' run --backend model '" + k_dir + "/tma_box.yaml'",
                         "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" + (tmp.path / "cache").string() + "'");
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
  std::ifstream in(k_dir + "/tma_box.yaml");
  std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* f : {"tma_box.cu", "iota_2048.f32"}) std::filesystem::copy_file(k_dir + "/" + f, tmp.path / f);
  // The swizzled kernel over an unswizzled map: its read-back undoes a swizzle that is not there.
  std::string wrong = yaml;
  wrong.replace(wrong.rfind("swizzle: 128B"), 13, "swizzle: none");
  std::ofstream(tmp.path / "wrong.yaml") << wrong;
  const auto db = (tmp.path / "w.sqlite").string();
  const auto r = run_cli("--db '" + db + "' run --backend model '" + (tmp.path / "wrong.yaml").string() + "'",
                         "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" + (tmp.path / "cache").string() + "'");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(query_text(db, "SELECT status FROM configurations WHERE variant = 'source/swizzled'"), "wrong_result");
  // A box row that is not whole 16-byte chunks: refused, naming the rule, before the kernel runs.
  std::string odd = yaml;
  odd.replace(odd.find("box: [32, 32]"), 13, "box: [3, 32]");
  std::ofstream(tmp.path / "odd.yaml") << odd;
  const auto o = run_cli("--db '" + db + "' run --backend model '" + (tmp.path / "odd.yaml").string() + "'",
                         "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" + (tmp.path / "cache").string() + "'");
  EXPECT_NE(o.err.find("tensor map 'map': box[0] x 4 bytes = 12; TMA moves whole 16-byte chunks of the innermost "
                       "dimension"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(query_text(db, "SELECT status FROM configurations WHERE variant = 'source/none' AND run_id = 2"),
            "unsupported");
}

} // namespace
