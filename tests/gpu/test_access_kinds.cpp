// The access kinds against the hardware: ldmatrix and shared-atomic variants measured with the
// access_kinds metric set, each compared exactly (requests) and within model::allowance()
// (wavefronts per request) with its access plan's prediction, and against the numbers the
// catalogue claims. Prints one row per case for the record.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "runner/common/metrics.hpp"
#include "runner/config/experiment.hpp"
#include "gpu_test_util.hpp"
#include "runner/launch/device.hpp"
#include "runner/launch/executor.hpp"
#include "runner/model/predict.hpp"
#include "runner/model/rules.hpp"
#include "runner/profile/offline.hpp"
#include "runner/registry/registry.hpp"

namespace {

namespace m = bb::metrics;

bb::profile::session& access_kinds_counters() {
  static auto s = [] {
    bb::launch::open_device(0);
    return bb::profile::session::create(0, m::find_set("access_kinds")->metrics);
  }();
  return *s;
}

/// The derived values (metrics::derive) of one launch of `family/variant` at `params`.
std::map<std::string, double> measure(const std::string& family, const std::string& variant,
                                      const nlohmann::json& params) {
  const auto* v = bb::registry::instance().find_variant(family, variant);
  EXPECT_NE(v, nullptr) << family << "/" << variant;
  if (!v) return {};
  bb::launch::exec_options o;
  o.warmup = 1;
  o.samples = 1;
  o.counter_launches = 1;
  o.nvtx_name = "access-kinds/" + v->id();
  const auto r = bb::launch::execute(*v, params, 123, o, &access_kinds_counters());
  EXPECT_EQ(r.status, bb::config_status::ok) << v->id() << " " << params.dump() << ": " << r.reason;
  std::map<std::string, double> raw;
  for (const auto& range : r.ranges)
    for (const auto& [name, value] : range) raw[name] += value;
  return m::derive(raw, r.smem_access_bytes);
}

/// Measures one case, prints it beside the prediction for `kind` and checks requests exactly and
/// wavefronts per request within the model's allowance. Returns the measured wavefronts/request.
double check_kind(const std::string& family, const std::string& variant, const nlohmann::json& params,
                  const std::string& kind) {
  SCOPED_TRACE(family + "/" + variant + " " + params.dump() + " " + kind);
  const auto* v = bb::registry::instance().find_variant(family, variant);
  if (!v) {
    ADD_FAILURE() << "no variant " << family << "/" << variant;
    return 0;
  }
  const auto p = bb::model::predict(v->plan(params));
  const auto it = p.kinds.find(kind);
  EXPECT_NE(it, p.kinds.end()) << "the plan has no " << kind << " request";
  const auto d = measure(family, variant, params);
  const double req = d.count(kind + "_requests") ? d.at(kind + "_requests") : -1;
  const double wf = d.count(kind + "_wavefronts_per_request") ? d.at(kind + "_wavefronts_per_request") : -1;
  const double pred_req = it == p.kinds.end() ? 0 : static_cast<double>(it->second.requests);
  const double pred_wf = it == p.kinds.end() || it->second.requests == 0
                             ? 0
                             : static_cast<double>(it->second.wavefronts) / static_cast<double>(it->second.requests);
  std::printf("%-26s %-40s %-6s req %10.0f (pred %10.0f)  wf/req %8.3f (pred %8.3f)\n",
              (family + "/" + variant).c_str(), params.dump().c_str(), kind.c_str(), req, pred_req, wf, pred_wf);
  std::fflush(stdout);
  EXPECT_EQ(req, pred_req) << kind << " requests";
  // Lost arbitrations (no address cause) widen the allowance upwards (model/rules.hpp).
  const double arbitration = d.count("arbitration_conflicts") && req > 0 ? d.at("arbitration_conflicts") / req : 0;
  EXPECT_TRUE(bb::model::agrees(wf, pred_wf, arbitration))
      << kind << " wavefronts/request: measured " << wf << ", predicted " << pred_wf << " (allowance "
      << bb::model::allowance(pred_wf) << " + arbitration " << arbitration << ")";
  return wf;
}

nlohmann::json ldmatrix_params(int matrices, int trans) {
  return {{"matrices", matrices}, {"mode", trans ? "trans" : "plain"}, {"batch", 2048}};
}

} // namespace

// 128-byte rows: the 8 rows of every matrix in one 16-byte bank group: 8 wavefronts per matrix,
// 32 for an .x4 (the H100 in issue 22 read 2,097,152 wavefronts for 65,536 LDSM), with or
// without .trans.
TEST(gpu_kinds, ldmatrix_unpadded_is_8_wavefronts_per_matrix) {
  BB_REQUIRE_GPU();
  for (const int trans : {0, 1})
    for (const int mats : {1, 2, 4}) {
      const double wf = check_kind("ldmatrix", "unpadded", ldmatrix_params(mats, trans), "ldsm");
      EXPECT_NEAR(wf, 8.0 * mats, 0.05 * mats) << "x" << mats << " trans " << trans;
    }
}

// Rows padded to 144 bytes, and Swizzle<3,4,3>: one wavefront per matrix (4 for an .x4).
TEST(gpu_kinds, ldmatrix_padded_and_swizzled_are_one_wavefront_per_matrix) {
  BB_REQUIRE_GPU();
  for (const char* variant : {"padded", "swizzled"})
    for (const int trans : {0, 1})
      for (const int mats : {1, 2, 4}) {
        const double wf = check_kind("ldmatrix", variant, ldmatrix_params(mats, trans), "ldsm");
        EXPECT_GE(wf, 1.0 * mats) << variant << " x" << mats;
        EXPECT_LE(wf, 1.05 * mats) << variant << " x" << mats;
      }
}

// The ldmatrix kernels' fill is plain STS and their reads LDSM alone: no LDS row, an STS row at
// the ideal, and load_requests counting the LDSM instructions (not "ld req 0").
TEST(gpu_kinds, ldmatrix_kernels_keep_the_kinds_apart) {
  BB_REQUIRE_GPU();
  const auto d = measure("ldmatrix", "unpadded", ldmatrix_params(4, 0));
  ASSERT_TRUE(d.count("lds_requests") && d.count("ldsm_requests") && d.count("sts_requests"));
  EXPECT_EQ(d.at("lds_requests"), 0.0);
  EXPECT_EQ(d.at("ldsm_requests"), 2048.0 * 8);
  EXPECT_EQ(d.at("load_requests"), 2048.0 * 8);
  EXPECT_NEAR(d.at("load_wavefronts_per_request"), 32.0, 0.5);
  EXPECT_NEAR(d.at("sts_wavefronts_per_request"), 4.0, 0.2);
  EXPECT_EQ(d.count("stsm_requests") ? d.at("stsm_requests") : 0.0, 0.0);
}

// 32 lanes on 32 distinct words of bank 0: 32 wavefronts per atomic (an H100 read 16,254,174
// conflicts for 524,288 ATOMS); bins padded to bank b, or one copy per warp: 1.
TEST(gpu_kinds, shared_atomics_one_bank_against_padded_and_per_warp) {
  BB_REQUIRE_GPU();
  const nlohmann::json params = {{"n", 1 << 22}, {"items", 16}};
  EXPECT_NEAR(check_kind("histogram", "one_bank", params, "atom"), 32.0, 1.0);
  EXPECT_LE(check_kind("histogram", "padded", params, "atom"), 1.2);
  EXPECT_LE(check_kind("histogram", "per_warp", params, "atom"), 1.2);
  // The one-bank read-back: lanes 32 words apart, one 32-way LDS per block.
  EXPECT_NEAR(check_kind("histogram", "one_bank", params, "lds"), 32.0, 1.0);
  // The zeroing stores: 4 rounds of 8 warps per block (an earlier loop shape ran 35).
  check_kind("histogram", "one_bank", params, "sts");
}

// 32 lanes adding to one word: one wavefront, as a load's broadcast (an H100 read 1.00 per
// request, where the model first assumed 32); the model counts distinct words per bank.
TEST(gpu_kinds, shared_atomics_on_one_address_take_one_wavefront) {
  BB_REQUIRE_GPU();
  EXPECT_LE(check_kind("histogram", "same_address", {{"n", 1 << 22}, {"items", 16}}, "atom"), 1.05);
}

// cp.async: at least one shared wavefront per 128-byte global line an instruction reads (lane =
// row reads 32 lines: 32 wavefronts whether the destinations are 128-byte, padded or swizzled
// rows), and at least what the destinations cost as a 16-byte store (scatter: 4 lines, 8-way
// destinations); row-wise copies take the ideal 4; .ca and .cg alike.
TEST(gpu_kinds, cp_async_costs_its_global_lines_and_its_destinations) {
  BB_REQUIRE_GPU();
  for (const char* cache : {"ca", "cg"}) {
    const nlohmann::json params = {{"cache", cache}, {"batch", 2048}};
    for (const char* variant : {"columns", "columns_padded", "columns_swizzled"})
      EXPECT_NEAR(check_kind("cp_async", variant, params, "ldgsts"), 32.0, 1.0) << variant << " " << cache;
    const double rows = check_kind("cp_async", "rows", params, "ldgsts");
    EXPECT_GE(rows, 4.0) << cache;
    EXPECT_LE(rows, 4.3) << cache;
    check_kind("cp_async", "scatter", params, "ldgsts");
    EXPECT_NEAR(check_kind("cp_async", "columns", params, "lds"), 4.0, 0.3) << "the read-back";
  }
}

// The conflicts the counter shows for cp.async, against the model's: the excess wavefronts under
// .ca (28 per instruction where 32 lines are read), none under .cg (an H100 and an H200 read 0.00
// in every layout, 8-way destinations included).
TEST(gpu_kinds, cp_async_conflicts_as_the_model_predicts_them) {
  BB_REQUIRE_GPU();
  for (const char* cache : {"ca", "cg"})
    for (const char* variant : {"columns", "columns_padded", "columns_swizzled", "rows", "scatter"}) {
      const nlohmann::json params = {{"cache", cache}, {"batch", 2048}};
      const auto* v = bb::registry::instance().find_variant("cp_async", variant);
      ASSERT_NE(v, nullptr) << variant;
      const auto k = bb::model::predict(v->plan(params)).kinds.at("ldgsts");
      const double predicted = static_cast<double>(k.conflicts) / static_cast<double>(k.requests);
      const auto d = measure("cp_async", variant, params);
      ASSERT_TRUE(d.count("ldgsts_conflicts_per_request")) << variant << " " << cache;
      const double measured = d.at("ldgsts_conflicts_per_request");
      std::printf("cp_async/%-17s %s  ldgsts conflicts/req %7.3f (pred %7.3f)\n", variant, cache, measured, predicted);
      EXPECT_NEAR(measured, predicted, std::max(0.05, 0.01 * predicted)) << variant << " " << cache;
    }
}

// stmatrix as ldmatrix: 8 wavefronts per matrix into 128-byte rows, 1 into 144-byte or
// Swizzle<3,4,3> rows; the fill is STSM alone (no STS) and store_requests counts it.
TEST(gpu_kinds, stmatrix_unpadded_padded_and_swizzled) {
  BB_REQUIRE_GPU();
  for (const int mats : {1, 2, 4}) {
    const nlohmann::json params = {{"matrices", mats}, {"batch", 2048}};
    EXPECT_NEAR(check_kind("stmatrix", "unpadded", params, "stsm"), 8.0 * mats, 0.05 * mats) << "x" << mats;
    for (const char* variant : {"padded", "swizzled"}) {
      const double wf = check_kind("stmatrix", variant, params, "stsm");
      EXPECT_GE(wf, 1.0 * mats) << variant << " x" << mats;
      EXPECT_LE(wf, 1.05 * mats) << variant << " x" << mats;
    }
  }
  const auto d = measure("stmatrix", "unpadded", {{"matrices", 4}, {"batch", 2048}});
  ASSERT_TRUE(d.count("sts_requests") && d.count("stsm_requests"));
  EXPECT_EQ(d.at("sts_requests"), 0.0);
  EXPECT_EQ(d.at("stsm_requests"), 2048.0 * 8);
  EXPECT_EQ(d.at("store_requests"), 2048.0 * 8);
}

// TMA boxes: one TMA load instruction per box, and the read-back through model::tma_swizzled
// (verified bit-exact, so the formula is the hardware's): unswizzled rows of 32, 64 and 128 bytes
// are 2-, 4- and 8-way (8, 16, 32 wavefronts per 16-byte request), each mode at its span 4.
TEST(gpu_kinds, tma_swizzle_modes_against_unswizzled_boxes) {
  BB_REQUIRE_GPU();
  const auto box = [](int row_bytes) { return nlohmann::json{{"row_bytes", row_bytes}, {"batch", 1024}}; };
  EXPECT_NEAR(check_kind("tma", "none", box(32), "lds"), 8.0, 0.3);
  EXPECT_NEAR(check_kind("tma", "none", box(64), "lds"), 16.0, 0.5);
  EXPECT_NEAR(check_kind("tma", "none", box(128), "lds"), 32.0, 1.0);
  EXPECT_NEAR(check_kind("tma", "sw32", box(32), "lds"), 4.0, 0.3);
  EXPECT_NEAR(check_kind("tma", "sw64", box(64), "lds"), 4.0, 0.3);
  EXPECT_NEAR(check_kind("tma", "sw128", box(128), "lds"), 4.0, 0.3);
  const auto d = measure("tma", "sw128", box(128));
  ASSERT_TRUE(d.count("tma_load_requests")) << "access_kinds counts TMA instructions on Hopper";
  EXPECT_EQ(d.at("tma_load_requests"), 1024.0); // one cp.async.bulk.tensor per box
}

// wgmma (sm_90a) reading both operands from shared memory in each canonical layout: every
// configuration of experiments/wgmma/wgmma.yaml computes D = A B^T exactly and its operand reads
// show as GMMA requests: 4 per wgmma (one per warp) of 8 wavefronts, no conflict, as the model
// says (an H100 read 8192 requests for 2048 single-wgmma tiles, 8.00 wavefronts each).
TEST(gpu_kinds, wgmma_reads_every_canonical_layout_as_the_model_says) {
  BB_REQUIRE_GPU();
  int major = 0, minor = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
  if (major != 9 || minor != 0) GTEST_SKIP() << "wgmma needs compute capability 9.0, this is " << major << "." << minor;
  const auto exp = bb::config::load_experiment_file(std::string(BB_SOURCE_DIR) + "/experiments/wgmma/wgmma.yaml",
                                                    bb::registry::instance());
  const auto configs = bb::config::expand(exp);
  ASSERT_EQ(configs.size(), 4u);
  for (const auto& c : configs) {
    SCOPED_TRACE(c.variant);
    const auto d = measure("wgmma", c.variant, c.params); // status "ok": the result verified
    const auto p = bb::model::predict(bb::registry::instance().find_variant("wgmma", c.variant)->plan(c.params));
    const auto& g = p.kinds.at("gmma");
    auto get = [&](const std::string& name) { return d.count(name) ? d.at(name) : -1.0; };
    std::printf("wgmma/%-6s %-14s gmma req %10.0f (pred %10llu)  wf/req %8.3f (pred %8.3f)  conflicts/req %6.3f\n",
                c.variant.c_str(), c.params.dump().c_str(), get("gmma_requests"),
                static_cast<unsigned long long>(g.requests), get("gmma_wavefronts_per_request"),
                static_cast<double>(g.wavefronts) / static_cast<double>(g.requests), get("gmma_conflicts_per_request"));
    std::fflush(stdout);
    ASSERT_TRUE(d.count("gmma_requests")) << "access_kinds counts GMMA on GH100";
    EXPECT_EQ(d.at("gmma_requests"), static_cast<double>(g.requests));
    EXPECT_NEAR(get("gmma_wavefronts_per_request"), static_cast<double>(g.wavefronts) / static_cast<double>(g.requests),
                0.05);
    EXPECT_LE(get("gmma_conflicts_per_request"), 0.05);
  }
}

// The passes a session on this GPU needs for each set equal what the host API computed offline
// for its chip (docs/experiment-format.md gives GH100: bank_conflicts 2, access_kinds 5).
TEST(gpu_kinds, on_device_passes_match_the_offline_count) {
  BB_REQUIRE_GPU();
  const auto& rich = access_kinds_counters();
  for (const char* set : {"bank_conflicts", "access_kinds"}) {
    const auto& names = m::find_set(set)->metrics;
    const auto offline = bb::profile::check_offline(rich.chip(), names);
    const auto device = bb::profile::session::create(0, names);
    std::printf("%s on %s: %zu pass(es) on the device, %zu offline\n", set, rich.chip().c_str(), device->passes(),
                offline.passes);
    EXPECT_EQ(device->passes(), offline.passes) << set;
    EXPECT_EQ(device->absent(), offline.unknown) << set;
  }
}
