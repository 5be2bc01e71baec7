// `run --backend model` for source variants, without a GPU: each kernel compiled by NVRTC, its PTX
// run block by block on the configuration's inputs, its shared-memory requests costed by the bank
// model; outputs checked, per-line predictions made, what the model cannot follow not_modelled.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "plan_test_util.hpp"
#include "runner/common/metrics.hpp"
#include "runner/config/experiment.hpp"
#include "runner/registry/registry.hpp"
#include "runner/session/model_backend.hpp"
#include "runner/source/emulate.hpp"
#include "runner/source/variants.hpp"

namespace fs = std::filesystem;

namespace {

using bb::config_status;

// One compile cache for the whole program: each kernel is compiled once.
struct cache_env : ::testing::Environment {
  fs::path dir = fs::temp_directory_path() / ("bb_model_code_" + std::to_string(::getpid()));
  void SetUp() override { ::setenv("BB_CACHE_DIR", dir.c_str(), 1); }
  void TearDown() override {
    ::unsetenv("BB_CACHE_DIR");
    fs::remove_all(dir);
  }
};
const auto* const k_env = ::testing::AddGlobalTestEnvironment(new cache_env);

bb::config::experiment load(const std::string& path) {
  return bb::config::load_experiment_file(path, bb::registry::instance());
}

const bb::config::experiment& model_yaml() {
  static const auto e = load(std::string(BB_TEST_DATA) + "/emulate/model.yaml");
  return e;
}

struct predicted {
  bb::launch::config_result r;
  bb::store::line_collection lines;
  [[nodiscard]] double counter(const char* name) const {
    if (r.ranges.empty()) return -1;
    const auto it = r.ranges.front().find(name);
    return it == r.ranges.front().end() ? -1 : it->second;
  }
};

predicted predict(const bb::config::experiment& e, const std::string& variant, const nlohmann::json& params,
                  std::uint64_t budget = 0) {
  bb::config::configuration cfg;
  cfg.variant = variant;
  cfg.params = params;
  predicted p;
  p.lines.status = bb::store::lines_status::unsupported;
  for (const auto& v : bb::source::variants_of(e))
    if (v.name == variant) p.r = bb::session::predict_configuration(e, cfg, v, budget, &p.lines);
  return p;
}

namespace m = bb::metrics;

TEST(model_code, a_conflicted_tile_is_predicted_checked_and_tied_to_its_line) {
  const auto p = predict(model_yaml(), "unpadded", {{"n", 64}});
  ASSERT_EQ(p.r.status, config_status::ok) << p.r.reason;
  // 4 blocks x 8 warps x 4 iterations; each reads (and writes) a column of the 32 x 32 tile: 32-way.
  EXPECT_EQ(p.counter(m::k_ld_requests), 128);
  EXPECT_EQ(p.counter(m::k_ld_wavefronts), 128 * 32);
  EXPECT_EQ(p.counter(m::k_ld_conflicts), 128 * 31);
  EXPECT_EQ(p.counter(m::k_st_wavefronts), 128 * 32);
  EXPECT_FALSE(p.r.unverified);
  EXPECT_EQ(p.r.verify.checked, 64u * 64u); // against the padded reference, emulated too
  EXPECT_EQ(p.r.verify.mismatches, 0u);
  EXPECT_NE(p.r.compiler.find("nvrtc"), std::string::npos);

  ASSERT_EQ(p.lines.status, bb::store::lines_status::ok) << p.lines.note;
  EXPECT_NE(p.lines.note.find("all 4 blocks run"), std::string::npos) << p.lines.note;
  std::uint64_t load_excess = 0, store_excess = 0;
  for (const auto& row : p.lines.rows) {
    EXPECT_TRUE(row.file.ends_with("tests/data/emulate/kernels.cu")) << row.file;
    if (row.kind == "lds") {
      EXPECT_EQ(row.line, 10);
      EXPECT_NE(row.source.find("out[(y + j) * n + x] = tile[threadIdx.x]"), std::string::npos) << row.source;
      load_excess += row.excess();
    } else {
      EXPECT_EQ(row.kind, "sts");
      EXPECT_EQ(row.line, 8);
      store_excess += row.excess();
    }
  }
  EXPECT_EQ(load_excess, 128u * 31);
  EXPECT_EQ(store_excess, 128u * 31);
}

TEST(model_code, padding_removes_the_conflict) {
  const auto p = predict(model_yaml(), "padded", {{"n", 64}});
  ASSERT_EQ(p.r.status, config_status::ok) << p.r.reason;
  EXPECT_TRUE(p.r.unverified); // it is the reference: nothing to check it against
  EXPECT_NE(p.r.reason.find("the variant has no check"), std::string::npos) << p.r.reason;
  EXPECT_EQ(p.counter(m::k_ld_requests), 128);
  EXPECT_EQ(p.counter(m::k_ld_wavefronts), 128);
  EXPECT_EQ(p.counter(m::k_st_conflicts), 0);
}

TEST(model_code, a_wrong_emulated_output_is_a_wrong_result) {
  const auto p = predict(model_yaml(), "buggy", {{"n", 64}});
  EXPECT_EQ(p.r.status, config_status::wrong_result);
  EXPECT_NE(p.r.reason.find("4096 of 4096 elements wrong; first: out[0] = 1, expected 0"), std::string::npos)
      << p.r.reason;
}

TEST(model_code, an_instruction_it_cannot_follow_is_not_modelled_at_its_source_line) {
  const auto p = predict(model_yaml(), "pmevent", {{"n", 64}});
  EXPECT_EQ(p.r.status, config_status::not_modelled);
  EXPECT_NE(p.r.reason.find("tests/data/emulate/kernels.cu:19"), std::string::npos) << p.r.reason;
  EXPECT_NE(p.r.reason.find("pmevent"), std::string::npos) << p.r.reason;
  EXPECT_TRUE(p.r.ranges.empty());                                 // never a guess
  EXPECT_EQ(p.lines.status, bb::store::lines_status::unsupported); // nothing to store
}

TEST(model_code, arguments_that_do_not_fit_the_kernel_fail_naming_both_lists) {
  const auto p = predict(model_yaml(), "missing_scalar", {{"n", 64}});
  EXPECT_EQ(p.r.status, config_status::failed);
  EXPECT_NE(p.r.reason.find("takes 4 parameter(s) of 8, 8, 4, 4 bytes; args: lists 3 of 8, 8, 4 bytes"),
            std::string::npos)
      << p.r.reason;
}

TEST(model_code, a_float_given_for_an_int_parameter_fails_naming_both_types) {
  static const auto types = load(std::string(BB_TEST_DATA) + "/emulate/types.yaml");
  const auto p = predict(types, "float_for_int", {{"n", 64}});
  EXPECT_EQ(p.r.status, config_status::failed);
  EXPECT_NE(p.r.reason.find("scalar 'n' is declared float (a floating-point number), but parameter 3 of kernel "
                            "'_Z6unevenPKfPfi' in "),
            std::string::npos)
      << p.r.reason;
  EXPECT_NE(p.r.reason.find("tests/data/emulate/kernels.cu is .u32 (an integer): its bytes would be read as the "
                            "other kind of number; declare the type the kernel takes"),
            std::string::npos)
      << p.r.reason;
}

TEST(model_code, blocks_that_differ_are_summed_when_all_run) {
  const auto p = predict(model_yaml(), "uneven", {{"n", 64}});
  ASSERT_EQ(p.r.status, config_status::ok) << p.r.reason;
  // Block (0, 0) reads by column (32 requests of 32 wavefronts), the other three by row.
  EXPECT_EQ(p.counter(m::k_ld_requests), 128);
  EXPECT_EQ(p.counter(m::k_ld_wavefronts), 32 * 32 + 96);
}

TEST(model_code, a_large_grid_is_scaled_from_a_sample_that_agrees) {
  // 32 x 32 blocks over a budget that runs about a dozen: the sample agrees, the counts scale.
  const auto p = predict(model_yaml(), "unpadded", {{"n", 1024}}, 300'000);
  ASSERT_EQ(p.r.status, config_status::ok) << p.r.reason;
  EXPECT_EQ(p.counter(m::k_ld_requests), 1024 * 32);
  EXPECT_EQ(p.counter(m::k_ld_wavefronts), 1024 * 32 * 32);
  EXPECT_NE(p.lines.note.find("13 of 1024 blocks run (they agree), counts scaled to all"), std::string::npos)
      << p.lines.note;
  // The sampled blocks' outputs are checked against the reference's same blocks.
  EXPECT_FALSE(p.r.unverified) << p.r.reason;
  EXPECT_EQ(p.r.verify.checked, 13u * 32 * 32);
  EXPECT_EQ(p.r.verify.mismatches, 0u);
}

TEST(model_code, a_sample_that_disagrees_is_not_modelled) {
  const auto p = predict(model_yaml(), "uneven", {{"n", 1024}}, 300'000);
  EXPECT_EQ(p.r.status, config_status::not_modelled);
  EXPECT_NE(p.r.reason.find("blocks differ (block (0, 0, 0) makes 64 load and store requests of 1056 wavefronts, "
                            "block (31, 0, 0) 64 of 64)"),
            std::string::npos)
      << p.r.reason;
  EXPECT_NE(p.r.reason.find("budget of 300000 (run --model-budget)"), std::string::npos) << p.r.reason;
}

TEST(model_code, a_block_over_the_budget_is_not_modelled) {
  const auto p = predict(model_yaml(), "padded", {{"n", 64}}, 1000);
  EXPECT_EQ(p.r.status, config_status::not_modelled);
  EXPECT_NE(p.r.reason.find("more than the model's budget of 1000 thread-instructions (run --model-budget)"),
            std::string::npos)
      << p.r.reason;
}

TEST(model_code, a_reference_is_emulated_once_per_configuration) {
  // n = 96 and 160 appear nowhere else in this program: no outputs of theirs are kept yet.
  const auto before = bb::source::references_emulated();
  const auto own = predict(model_yaml(), "padded", {{"n", 96}}); // the reference, as a variant of its own
  ASSERT_EQ(own.r.status, config_status::ok) << own.r.reason;
  const auto checked = predict(model_yaml(), "unpadded", {{"n", 96}});
  ASSERT_EQ(checked.r.status, config_status::ok) << checked.r.reason;
  EXPECT_EQ(checked.r.verify.checked, 96u * 96u);
  EXPECT_EQ(checked.r.verify.mismatches, 0u);
  EXPECT_EQ(bb::source::references_emulated(), before); // its outputs were kept when it ran

  // Not run before: emulated once for the first variant checked against it, read by the next.
  const auto first = predict(model_yaml(), "unpadded", {{"n", 160}});
  EXPECT_EQ(first.r.verify.checked, 160u * 160u);
  EXPECT_EQ(bb::source::references_emulated(), before + 1);
  const auto wrong = predict(model_yaml(), "buggy", {{"n", 160}});
  EXPECT_EQ(wrong.r.status, config_status::wrong_result) << wrong.r.reason;
  EXPECT_EQ(wrong.r.verify.checked, 160u * 160u);
  // Back to n = 96 after 160: both are kept.
  const auto again = predict(model_yaml(), "buggy", {{"n", 96}});
  EXPECT_EQ(again.r.status, config_status::wrong_result) << again.r.reason;
  EXPECT_EQ(bb::source::references_emulated(), before + 1);
}

// Atomics: the shared-memory atomics' conflicts, and outputs that need every block.
TEST(model_code, the_histogram_atomics_are_predicted_and_checked_when_every_block_runs) {
  const auto e = load(std::string(BB_SOURCE_DIR) + "/experiments/source/histogram.yaml");
  // n = 16384: 4 blocks of 256 threads, 16 bytes each; the bytes count 0, 1, .., 255 over and over.
  const auto eight = predict(e, "eight_copies", {{"n", 16384}});
  ASSERT_EQ(eight.r.status, config_status::ok) << eight.r.reason;
  EXPECT_FALSE(eight.r.unverified) << eight.r.reason;
  EXPECT_EQ(eight.r.verify.checked, 256u); // against one_copy, emulated too
  // The final reads: 256 threads read bin b's 8 copies at b * 8 + c. ptxas fuses the 8 adjacent
  // ld.shared.u32 into 2 LDS.128 per thread, so each of the 8 warps makes 2 requests of 8
  // wavefronts: the shape an H100 measured (16384 requests, 131072 wavefronts over 1024 blocks).
  EXPECT_EQ(eight.counter(m::k_ld_requests), 4 * 8 * 2);
  EXPECT_EQ(eight.counter(m::k_ld_wavefronts), 4 * 8 * 2 * 8);

  const auto sampled = predict(e, "eight_copies", {{"n", 4194304}}, 1'000'000);
  ASSERT_EQ(sampled.r.status, config_status::ok) << sampled.r.reason;
  EXPECT_TRUE(sampled.r.unverified);
  EXPECT_NE(sampled.r.reason.find("writes global memory with atomics, so its outputs need every block"),
            std::string::npos)
      << sampled.r.reason;
  EXPECT_EQ(sampled.counter(m::k_ld_requests), 1024 * 8 * 2); // 16384, as measured
  EXPECT_EQ(sampled.counter(m::k_ld_wavefronts), 1024 * 8 * 2 * 8);
}

// The seeds' transpose as a plain .cu file equals the built-in transpose's access plans.
TEST(model_code, the_source_transpose_equals_the_built_in_plans) {
  const auto e = load(std::string(BB_SOURCE_DIR) + "/experiments/source/transpose.yaml");
  for (const char* variant : {"naive", "padded", "swizzled"})
    for (const int tile : {16, 32, 64}) {
      const nlohmann::json params = {{"n", 256}, {"tile", tile}, {"block_rows", 8}};
      const std::string what = std::string(variant) + " " + params.dump();
      const auto p = predict(e, variant, params);
      ASSERT_EQ(p.r.status, config_status::ok) << what << ": " << p.r.reason;
      EXPECT_EQ(p.r.verify.mismatches, 0u) << what;
      auto plan_params = params;
      plan_params["type"] = "float";
      const auto want = bb::test::predict_of("transpose", variant, plan_params);
      const auto want_counters = bb::model::predicted_counters(want, e.metrics.names());
      ASSERT_FALSE(p.r.ranges.empty()) << what;
      EXPECT_EQ(p.r.ranges.front(), want_counters) << what;
    }
}

// The prediction cache (runner/source/prediction_cache.hpp): a hit gives exactly what the
// emulation gave; a changed kernel, check file or budget is a miss.
struct cached_copy {
  fs::path dir = fs::temp_directory_path() / ("bb_prediction_cache_" + std::to_string(::getpid()));
  cached_copy() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* f : {"emulate/kernels.cu", "emulate/model.yaml"})
      fs::copy_file(std::string(BB_TEST_DATA) + "/" + f, dir / fs::path(f).filename());
    for (const char* f : {"histogram.cu", "histogram.yaml", "histogram_4m.bin"})
      fs::copy_file(std::string(BB_SOURCE_DIR) + "/experiments/source/" + f, dir / f);
  }
  ~cached_copy() { fs::remove_all(dir); }
  void replace(const std::string& file, const std::string& from, const std::string& to) const {
    std::ifstream in(dir / file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(dir / file, std::ios::binary | std::ios::trunc) << text;
  }
};

bb::source::emulation emulated(const fs::path& yaml, const std::string& variant, const nlohmann::json& params,
                               std::uint64_t budget = bb::source::k_default_model_budget) {
  const auto e = load(yaml.string());
  bb::source::emulation_options o;
  o.budget = budget;
  o.cache_version = "test";
  return bb::source::emulate(e, *e.find_source(variant), params, e.seed, bb::source::default_cache_dir(), o);
}

void expect_same_emulation(const bb::source::emulation& a, const bb::source::emulation& b) {
  for (const auto& [x, y] :
       {std::pair{&a.prediction.load, &b.prediction.load}, std::pair{&a.prediction.store, &b.prediction.store}}) {
    EXPECT_EQ(x->requests, y->requests);
    EXPECT_EQ(x->wavefronts, y->wavefronts);
    EXPECT_EQ(x->ideal_wavefronts, y->ideal_wavefronts);
    EXPECT_EQ(x->conflicts, y->conflicts);
  }
  ASSERT_EQ(a.prediction.kinds.size(), b.prediction.kinds.size());
  for (const auto& [kind, t] : a.prediction.kinds) {
    EXPECT_EQ(t.requests, b.prediction.kinds.at(kind).requests) << kind;
    EXPECT_EQ(t.wavefronts, b.prediction.kinds.at(kind).wavefronts) << kind;
    EXPECT_EQ(t.ideal_wavefronts, b.prediction.kinds.at(kind).ideal_wavefronts) << kind;
    EXPECT_EQ(t.conflicts, b.prediction.kinds.at(kind).conflicts) << kind;
  }
  EXPECT_EQ(a.lines.status, b.lines.status);
  EXPECT_EQ(a.lines.note, b.lines.note);
  EXPECT_EQ(a.lines.kernel, b.lines.kernel);
  ASSERT_EQ(a.lines.rows.size(), b.lines.rows.size());
  for (std::size_t i = 0; i < a.lines.rows.size(); ++i) {
    const auto &x = a.lines.rows[i], &y = b.lines.rows[i];
    EXPECT_EQ(std::tie(x.function, x.pc, x.file, x.line, x.opcode, x.kind),
              std::tie(y.function, y.pc, y.file, y.line, y.opcode, y.kind));
    EXPECT_EQ(std::tie(x.executions, x.threads, x.wavefronts, x.ideal),
              std::tie(y.executions, y.threads, y.wavefronts, y.ideal));
  }
  EXPECT_EQ(std::tie(a.smem_access_bytes, a.blocks, a.blocks_run, a.checked, a.unchecked),
            std::tie(b.smem_access_bytes, b.blocks, b.blocks_run, b.checked, b.unchecked));
  EXPECT_EQ(std::tie(a.verify.ok, a.verify.checked, a.verify.mismatches, a.verify.first_mismatch),
            std::tie(b.verify.ok, b.verify.checked, b.verify.mismatches, b.verify.first_mismatch));
  EXPECT_EQ(std::tie(a.compile_key, a.compiler, a.compile_options),
            std::tie(b.compile_key, b.compiler, b.compile_options));
}

TEST(model_code, a_cached_prediction_is_the_emulations_and_a_changed_kernel_misses) {
  const cached_copy copy;
  const auto yaml = copy.dir / "model.yaml";
  const auto first = emulated(yaml, "unpadded", {{"n", 64}});
  EXPECT_FALSE(first.from_cache);
  ASSERT_EQ(first.prediction.load.wavefronts, 128u * 32);
  ASSERT_FALSE(first.lines.rows.empty());
  EXPECT_TRUE(first.checked);
  const auto again = emulated(yaml, "unpadded", {{"n", 64}});
  EXPECT_TRUE(again.from_cache);
  expect_same_emulation(first, again);
  const auto other = emulated(yaml, "unpadded", {{"n", 96}}); // another configuration
  EXPECT_FALSE(other.from_cache);

  // The padded tile's padding dropped: the kernel's PTX changes, so does its prediction.
  const auto padded = emulated(yaml, "padded", {{"n", 64}});
  EXPECT_EQ(padded.prediction.load.wavefronts, 128u);
  EXPECT_TRUE(emulated(yaml, "padded", {{"n", 64}}).from_cache);
  copy.replace("kernels.cu", "tile[32][32 + PAD]", "tile[32][32]");
  const auto edited = emulated(yaml, "padded", {{"n", 64}});
  EXPECT_FALSE(edited.from_cache);
  EXPECT_EQ(edited.prediction.load.wavefronts, 128u * 32);
  // unpadded checks against padded, whose kernel changed: a miss too.
  EXPECT_FALSE(emulated(yaml, "unpadded", {{"n", 64}}).from_cache);
}

TEST(model_code, a_changed_budget_or_check_file_misses_the_prediction_cache) {
  const cached_copy copy;
  const auto yaml = copy.dir / "histogram.yaml";
  // n = 16384: 4 blocks, all run, each bin 64; the check file holds n = 2^22's 16384 per bin.
  const auto wrong = emulated(yaml, "one_copy", {{"n", 16384}});
  EXPECT_FALSE(wrong.from_cache);
  ASSERT_TRUE(wrong.checked) << wrong.unchecked;
  EXPECT_EQ(wrong.verify.mismatches, 256u);
  EXPECT_EQ(wrong.verify.first_mismatch, "bins[0] = 64, expected 16384");
  const auto same = emulated(yaml, "one_copy", {{"n", 16384}});
  EXPECT_TRUE(same.from_cache);
  expect_same_emulation(wrong, same);

  const auto budget = emulated(yaml, "one_copy", {{"n", 16384}}, 40'000'000);
  EXPECT_FALSE(budget.from_cache);
  expect_same_emulation(wrong, budget); // the same emulation under another budget
  EXPECT_TRUE(emulated(yaml, "one_copy", {{"n", 16384}}, 40'000'000).from_cache);

  std::vector<std::uint32_t> bins(256, 64);
  std::ofstream(copy.dir / "histogram_4m.bin", std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bins.data()), 256 * 4);
  const auto right = emulated(yaml, "one_copy", {{"n", 16384}});
  EXPECT_FALSE(right.from_cache);
  EXPECT_EQ(right.verify.mismatches, 0u);
  EXPECT_EQ(right.verify.checked, 256u);
  EXPECT_TRUE(emulated(yaml, "one_copy", {{"n", 16384}}).from_cache);
}

} // namespace
