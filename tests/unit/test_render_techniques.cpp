// `bankbench techniques`: the page built from a small database through the store API, matched
// whole against known text.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <unistd.h>

#include "runner/common/error.hpp"
#include "runner/registry/registry.hpp"
#include "runner/render/techniques.hpp"
#include "runner/store/database.hpp"
#include "runner/store/samples.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bb::store;

constexpr const char* k_toy_yaml = R"(name: toy
description: A toy transpose through a shared tile.
claim: Padding each row by one word removes the 32-way conflict of column reads.
family: toy
variants: [naive, padded]
axes:
  n: [1024, 4096]
expect:
  - variants: [naive]
    metric: load_wavefronts_per_request
    between: [31, 33]
    claim: the unpadded column read is 32-way
  - variants: [padded]
    metric: load_conflicts_per_request
    below: 0.02
  - where: {n: 1024}
    metric: store_wavefronts_per_request
    between: [1, 1.05]
)";

constexpr const char* k_reference_yaml = R"(name: reference
description: Device-to-device copies.
family: reference
variants: [copy, memcpy]
axes:
  bytes: [1048576]
)";

/// The families the YAML above names, registered in a registry of the test's own.
bb::registry toy_registry() {
  bb::registry reg;
  const bb::family_info toy{"toy", "toy transpose", {{"n", 1024, "side"}}};
  const bb::family_info reference{"reference", "copies", {{"bytes", 1048576, "bytes"}}};
  reg.add_family(toy);
  reg.add_family(reference);
  for (const char* v : {"naive", "padded"}) reg.add_variant({"toy", v, "", {}, {}});
  for (const char* v : {"copy", "memcpy"}) reg.add_variant({"reference", v, "", {}, {}});
  return reg;
}

launch_record launch(double ld_wf, double st_wf) {
  return {0,
          {{"load_wavefronts_per_request", "ratio", ld_wf, true},
           {"load_conflicts_per_request", "ratio", ld_wf - 1, true},
           {"store_wavefronts_per_request", "ratio", st_wf, true},
           {"store_conflicts_per_request", "ratio", st_wf - 1, true}}};
}

timing_record timing(double median_ns, std::uint64_t bytes) {
  timing_record t = summarize_samples({median_ns - 100, median_ns, median_ns + 500});
  t.bandwidth_gbps = bandwidth_gbps(bytes, t.median_ns);
  return t;
}

configuration_record config(int seq, const std::string& variant, int n) {
  configuration_record c;
  c.seq = seq;
  c.variant = "toy/" + variant;
  c.family = "toy";
  c.params_json = "{\"n\":" + std::to_string(n) + "}";
  c.bytes_moved = 8ull * n * n;
  return c;
}

class render_techniques : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() /
            ("bb_test_render_techniques_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(m_dir);
    m_db.emplace(database::open((m_dir / "bankbench.sqlite").string()));

    gpu_record g;
    g.uuid = "GPU-0001";
    g.name = "NVIDIA H200";
    g.chip = "GH100";
    g.cc_major = 9;
    g.sm_count = 132;
    g.driver_version = "580.95.05";
    g.cuda_driver_version = 13000;
    g.cuda_runtime_version = 13000;
    const auto gpu = m_db->upsert_gpu(g);

    // Run 1: the reference copies; the copy kernel is the faster of the two.
    auto reference = run("reference", "experiments/reference/reference.yaml", k_reference_yaml,
                         "2026-11-20T09:00:00.000Z");
    m_reference = m_db->begin_run(gpu, reference);
    for (const auto& [seq, variant, ns] : {std::tuple{0, "copy", 1000.0}, std::tuple{1, "memcpy", 1250.0}}) {
      configuration_record c;
      c.seq = seq;
      c.variant = std::string("reference/") + variant;
      c.family = "reference";
      c.params_json = R"({"bytes":1048576})";
      c.bytes_moved = 2'000'000;
      c.timing = timing(ns, c.bytes_moved);
      m_db->add_configuration(m_reference, c);
    }
    m_db->finish_run(m_reference, bb::run_status::completed);

    // Run 2: an older toy run that the page must pass over.
    m_old_toy = m_db->begin_run(gpu, run("toy", "experiments/toy/toy.yaml", k_toy_yaml, "2026-11-20T10:00:00.000Z"));
    m_db->finish_run(m_old_toy, bb::run_status::completed);

    // Run 3: the latest toy run: one expectation fails, one configuration gives a wrong result.
    m_toy = m_db->begin_run(gpu, run("toy", "experiments/toy/toy.yaml", k_toy_yaml, "2026-11-21T08:30:12.123Z"));
    auto naive_small = config(0, "naive", 1024);
    naive_small.launches = {launch(32.06, 1)};
    naive_small.timing = timing(20000, naive_small.bytes_moved);
    naive_small.expectations = {{"load_wavefronts_per_request", "load_wavefronts_per_request in [31, 33]", 32.06, true},
                                {"store_wavefronts_per_request", "store_wavefronts_per_request in [1, 1.05]", 1, true}};
    m_db->add_configuration(m_toy, naive_small);
    auto naive_large = config(1, "naive", 4096);
    naive_large.launches = {launch(30.5, 1.1)};
    naive_large.timing = timing(300000, naive_large.bytes_moved);
    naive_large.expectations = {
        {"load_wavefronts_per_request", "load_wavefronts_per_request in [31, 33]", 30.5, false}};
    m_db->add_configuration(m_toy, naive_large);
    auto padded_small = config(2, "padded", 1024);
    padded_small.launches = {launch(1.006, 1)};
    padded_small.timing = timing(10000, padded_small.bytes_moved);
    padded_small.expectations = {{"load_conflicts_per_request", "load_conflicts_per_request < 0.02", 0.006, true},
                                 {"store_wavefronts_per_request", "store_wavefronts_per_request in [1, 1.05]", 1,
                                  true}};
    m_db->add_configuration(m_toy, padded_small);
    auto padded_large = config(3, "padded", 4096);
    padded_large.status = bb::config_status::wrong_result;
    padded_large.reason = "3 of 16777216 elements wrong";
    m_db->add_configuration(m_toy, padded_large);
    m_db->finish_run(m_toy, bb::run_status::completed);

    // Run 4: the newest run, a bank-model prediction: not a measurement, so not on the default page.
    gpu_record model;
    model.uuid = "model-rules-1";
    model.name = "bank model";
    model.backend = "model";
    m_model = m_db->begin_run(m_db->upsert_gpu(model),
                              run("toy", "experiments/toy/toy.yaml", k_toy_yaml, "2026-11-22T08:00:00.000Z"));
    m_db->finish_run(m_model, bb::run_status::completed);
  }
  void TearDown() override {
    m_db.reset();
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }

  static run_record run(const std::string& name, const std::string& path, const std::string& text,
                        const std::string& started) {
    run_record r;
    r.started_at = started;
    r.git_commit = "0123456789abcdef0123456789abcdef01234567";
    r.bankbench_version = "0.1.0";
    r.experiment_name = name;
    r.experiment_path = path;
    r.experiment_text = text;
    r.command_line = "bankbench run";
    return r;
  }

  std::string page(const std::vector<std::int64_t>& runs = {}) {
    std::ostringstream out;
    bb::render::write_techniques(*m_db, runs, m_registry, out);
    return out.str();
  }

  fs::path m_dir;
  std::optional<database> m_db;
  bb::registry m_registry = toy_registry();
  std::int64_t m_reference = 0, m_old_toy = 0, m_toy = 0, m_model = 0;
};

TEST_F(render_techniques, default_page_takes_the_latest_measured_run_of_each_experiment) {
  EXPECT_EQ(bb::render::technique_runs(*m_db, {}), (std::vector<std::int64_t>{m_reference, m_toy}));
  const std::string expected = R"(# Shared-memory bank-conflict techniques, measured

Generated by `bankbench techniques` from the results database: do not edit by hand, run it again.
Each section is one experiment (`experiments/<family>/<name>.yaml`): the claim it tests, what the
counters and timers measured for every configuration, and whether the expectations written in
the file held.

- GPU: NVIDIA H200 (GH100, compute capability 9.0, 132 SMs), driver 580.95.05, CUDA 13.0
- Measured: 2026-11-20 to 2026-11-21 (runs 1, 3)
- Reference bandwidth: 2000.0 GB/s, the best `reference` configuration (copy bytes=1048576, run 1); "% copy" is a configuration's bandwidth as a share of it.

"ld" and "st" are shared-memory loads and stores; "wf/req" is wavefronts per request (1 for a
conflict-free warp access of 4 bytes per lane), "confl/req" bank conflicts per request;
"ld" counts ldmatrix instructions as requests, as Nsight Compute does. Sections whose kernels
use other kinds add their own columns: "ldsm" ldmatrix, "stsm" stmatrix, "atom" shared
atomics, "ldgsts" cp.async, "gmma" wgmma operand reads (docs/bank-model.md, access kinds); times are
medians of event-timed launches; "GB/s" counts the bytes each kernel must move.

| technique               | verdict            | configurations measured | expectation checks met |
| ----------------------- | ------------------ | ----------------------: | ---------------------: |
| [reference](#reference) | nothing checked    |                  2 of 2 |                 0 of 0 |
| [toy](#toy)             | hardware disagrees |                  3 of 4 |                 4 of 5 |

## reference

_The experiment file states no claim._

Device-to-device copies.

Run 1 of `experiments/reference/reference.yaml`, started 2026-11-20T09:00:00.000Z, commit 0123456789ab, status completed.

| variant | params        | ld wf/req | ld confl/req | st wf/req | st confl/req | median µs |   GB/s | % copy | checks |
| ------- | ------------- | --------: | -----------: | --------: | -----------: | --------: | -----: | -----: | ------ |
| copy    | bytes=1048576 |         - |            - |         - |            - |      1.00 | 2000.0 |  100.0 | -      |
| memcpy  | bytes=1048576 |         - |            - |         - |            - |      1.25 | 1600.0 |   80.0 | -      |

No expectation was checked.

## toy

> Padding each row by one word removes the 32-way conflict of column reads.

A toy transpose through a shared tile.

Run 3 of `experiments/toy/toy.yaml`, started 2026-11-21T08:30:12.123Z, commit 0123456789ab, status completed.

| variant | params | ld wf/req | ld confl/req | st wf/req | st confl/req | median µs |  GB/s | % copy | checks       |
| ------- | ------ | --------: | -----------: | --------: | -----------: | --------: | ----: | -----: | ------------ |
| naive   | n=1024 |     32.06 |        31.06 |      1.00 |         0.00 |     20.00 | 419.4 |   21.0 | pass         |
| naive   | n=4096 |     30.50 |        29.50 |      1.10 |         0.10 |    300.00 | 447.4 |   22.4 | 1 failed     |
| padded  | n=1024 |      1.01 |         0.01 |      1.00 |         0.00 |     10.00 | 838.9 |   41.9 | pass         |
| padded  | n=4096 |         - |            - |         - |            - |         - |     - |      - | wrong_result |

Expectations:

- **disagrees**: `load_wavefronts_per_request in [31, 33]` for naive: 1 of 2 configurations met, measured 30.5 to 32.06; failed: naive n=4096: measured 30.5. Claim: the unpadded column read is 32-way.
- held: `load_conflicts_per_request < 0.02` for padded: 1 of 1 configuration met, measured 0.006.
- held: `store_wavefronts_per_request in [1, 1.05]` for every variant where n=1024: 2 of 2 configurations met, measured 1.

**The hardware disagrees** with 1 of 5 expectation checks; each is listed above with what was measured.

**Not measured**: 1 of 4 configurations did not finish: padded n=4096 (wrong_result: 3 of 16777216 elements wrong).
)";
  EXPECT_EQ(page(), expected);
}

TEST_F(render_techniques, named_runs_are_shown_in_the_order_given) {
  EXPECT_EQ(bb::render::technique_runs(*m_db, {m_old_toy, m_reference}),
            (std::vector<std::int64_t>{m_old_toy, m_reference}));
  const std::string text = page({m_old_toy});
  EXPECT_NE(text.find("Run 2 of `experiments/toy/toy.yaml`"), std::string::npos) << text;
  EXPECT_NE(text.find("- not checked: `load_wavefronts_per_request in [31, 33]` for naive: 0 of 0 configurations met."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("No expectation was checked."), std::string::npos) << text;
}

TEST_F(render_techniques, an_experiment_that_no_longer_loads_is_shown_without_claims) {
  bb::registry empty; // "toy" is not registered: the stored text fails to load
  std::ostringstream out;
  bb::render::write_techniques(*m_db, {m_toy}, empty, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("The stored experiment no longer loads in this build, so its claims are not shown."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("- **disagrees**: `load_wavefronts_per_request in [31, 33]`: 1 of 2 configurations met, "
                      "measured 30.5 to 32.06; failed: naive n=4096: measured 30.5."),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("> Padding"), std::string::npos) << text;
}

// A configuration measured without a check of its output (a source variant without `check:`)
// shows its counters and time, counts as measured, and is listed as not verified, not unfinished.
TEST_F(render_techniques, an_unverified_configuration_is_measured_not_unfinished) {
  const auto gpu = m_db->upsert_gpu([] {
    gpu_record g;
    g.uuid = "GPU-0001";
    g.name = "NVIDIA H200";
    g.chip = "GH100";
    g.cc_major = 9;
    g.sm_count = 132;
    return g;
  }());
  const auto id = m_db->begin_run(gpu, run("toy", "experiments/toy/toy.yaml", k_toy_yaml, "2026-11-23T08:00:00.000Z"));
  auto checked = config(0, "padded", 1024);
  checked.launches = {launch(1.0, 1)};
  checked.timing = timing(10000, checked.bytes_moved);
  checked.expectations = {{"load_conflicts_per_request", "load_conflicts_per_request < 0.02", 0, true}};
  m_db->add_configuration(id, checked);
  auto unchecked = config(1, "naive", 1024);
  unchecked.status = bb::config_status::unverified;
  unchecked.launches = {launch(32.0, 1)};
  unchecked.timing = timing(20000, unchecked.bytes_moved);
  m_db->add_configuration(id, unchecked);
  m_db->finish_run(id, bb::run_status::completed);
  const std::string text = page({id});
  EXPECT_NE(text.find("| [toy](#toy) | held    |                  2 of 2 |"), std::string::npos) << text;
  EXPECT_NE(text.find("|     32.00 |"), std::string::npos) << "the unverified row's counters: " << text;
  EXPECT_NE(text.find("| unverified |"), std::string::npos) << text;
  EXPECT_NE(text.find("**The claim held**: all 1 expectation checks on 1 configurations were met."), std::string::npos)
      << text;
  EXPECT_NE(text.find("**Not verified**: 1 of 2 configurations were measured but have no check of their output: "
                      "naive n=1024."),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("did not finish"), std::string::npos) << text;
}

TEST_F(render_techniques, an_unknown_run_is_an_error) {
  EXPECT_THROW(bb::render::technique_runs(*m_db, {99}), bb::store_error);
}

TEST(render_techniques_empty, a_database_without_runs_is_a_usage_error) {
  const auto dir = fs::temp_directory_path() / ("bb_test_render_techniques_empty_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  {
    const auto db = database::open((dir / "bankbench.sqlite").string());
    EXPECT_THROW(bb::render::technique_runs(db, {}), bb::usage_error);
  }
  fs::remove_all(dir);
}

} // namespace
