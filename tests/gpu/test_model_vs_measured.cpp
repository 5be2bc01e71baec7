// The bank model against the hardware: every registered variant with an access plan, measured
// through the CUPTI range profiler, must read the wavefronts per request the model predicts,
// within model::allowance() (docs/bank-model.md). Prints one table row per case for the record.
#include <algorithm>

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "runner/common/metrics.hpp"
#include "gpu_test_util.hpp"
#include "runner/launch/device.hpp"
#include "runner/launch/executor.hpp"
#include "runner/model/predict.hpp"
#include "runner/model/rules.hpp"
#include "runner/registry/registry.hpp"

namespace {

namespace m = bb::metrics;

bb::profile::session& model_counters() {
  static auto s = [] {
    bb::launch::open_device(0);
    return bb::profile::session::create(0, m::find_set("bank_conflicts")->metrics);
  }();
  return *s;
}

/// The family's defaults, with n set where the family has one.
nlohmann::json params_for(const bb::family_info& f, int n) {
  nlohmann::json p = nlohmann::json::object();
  for (const auto& s : f.params) p[s.name] = s.default_value;
  if (p.contains("n")) p["n"] = n;
  return p;
}

struct side {
  double requests = 0, wavefronts = 0;
  [[nodiscard]] double per_request() const { return requests > 0 ? wavefronts / requests : 0; }
};

/// Measured loads and stores of one launch: the sum over its kernels' ranges.
std::pair<side, side> measure(const bb::variant_info& v, const nlohmann::json& params) {
  bb::launch::exec_options o;
  o.warmup = 1;
  o.samples = 1;
  o.counter_launches = 1;
  o.nvtx_name = "model-vs-measured/" + v.id();
  const auto r = bb::launch::execute(v, params, 123, o, &model_counters());
  EXPECT_EQ(r.status, bb::config_status::ok) << v.id() << " " << params.dump() << ": " << r.reason;
  side ld, st;
  for (const auto& range : r.ranges) {
    auto get = [&](const char* name) { return range.count(name) ? range.at(name) : 0.0; };
    ld.requests += get(m::k_ld_requests);
    ld.wavefronts += get(m::k_ld_wavefronts);
    st.requests += get(m::k_st_requests);
    st.wavefronts += get(m::k_st_wavefronts);
  }
  return {ld, st};
}

void print_header() {
  std::printf("%-34s %-14s %12s %12s %9s %9s %12s %12s %9s %9s\n", "variant", "params", "ld req pred", "ld req meas",
              "ld wf/req", "measured", "st req pred", "st req meas", "st wf/req", "measured");
}

/// One case measured beside its prediction `p`, printed as a table row.
struct compared_case {
  side ld, st;
  double ld_pred = 0, st_pred = 0; ///< predicted wavefronts per request
};

compared_case compare_case(const bb::variant_info& v, const nlohmann::json& params, const bb::model::prediction& p) {
  auto per_request = [](const bb::model::side_totals& t) {
    return t.requests ? static_cast<double>(t.wavefronts) / static_cast<double>(t.requests) : 0;
  };
  compared_case c;
  std::tie(c.ld, c.st) = measure(v, params);
  c.ld_pred = per_request(p.load);
  c.st_pred = per_request(p.store);
  std::printf("%-34s %-14s %12llu %12.0f %9.3f %9.3f %12llu %12.0f %9.3f %9.3f\n", v.id().c_str(),
              params.dump().c_str(), static_cast<unsigned long long>(p.load.requests), c.ld.requests, c.ld_pred,
              c.ld.per_request(), static_cast<unsigned long long>(p.store.requests), c.st.requests, c.st_pred,
              c.st.per_request());
  return c;
}

void compare_all(int n, bool only_families_with_n) {
  print_header();
  int compared = 0;
  for (const auto* f : bb::registry::instance().families())
    for (const auto* v : bb::registry::instance().variants(f->name)) {
      if (!v->plan) continue;
      const auto params = params_for(*f, n);
      if (only_families_with_n && !params.contains("n")) continue;
      SCOPED_TRACE(v->id() + " " + params.dump());
      bb::model::prediction p;
      try {
        p = bb::model::predict(v->plan(params));
      } catch (const bb::unsupported_parameter&) {
        continue; // the factory refuses it too
      }
      // ldmatrix, stmatrix, atomics and cp.async need the access_kinds counters, and TMA's writes are
      // outside the plan: test_access_kinds.cpp compares those kinds with their own counters.
      if (f->name == "tma" || std::any_of(p.kinds.begin(), p.kinds.end(),
                                          [](const auto& k) { return k.first != "lds" && k.first != "sts"; }))
        continue;
      const auto [ld, st, ld_pred, st_pred] = compare_case(*v, params, p);
      // Requests are instruction counts: the plan must have every one of them.
      EXPECT_EQ(ld.requests, static_cast<double>(p.load.requests));
      EXPECT_EQ(st.requests, static_cast<double>(p.store.requests));
      EXPECT_TRUE(bb::model::agrees(ld.per_request(), ld_pred))
          << "load wavefronts/request: measured " << ld.per_request() << ", predicted " << ld_pred << " (allowance "
          << bb::model::allowance(ld_pred) << ")";
      EXPECT_TRUE(bb::model::agrees(st.per_request(), st_pred))
          << "store wavefronts/request: measured " << st.per_request() << ", predicted " << st_pred;
      ++compared;
    }
  EXPECT_GE(compared, 3) << "the transpose variants at least have plans";
  std::fflush(stdout);
}

} // namespace

TEST(gpu_model, predicted_wavefronts_match_the_counters_at_n_1024) {
  BB_REQUIRE_GPU();
  compare_all(1024, false);
}

// n = 100 leaves partial tiles at the edges: lanes outside the matrix are inactive (rule 4), and
// warps wholly outside issue no request if the compiler kept the bounds check a branch.
TEST(gpu_model, partial_tiles_at_n_100) {
  BB_REQUIRE_GPU();
  compare_all(100, true);
}

// The convolution plan follows where nvcc put the taps' loads against the output's bounds check,
// which differs between the two walks (kernels/convolution/family.cuh): both walks, both pitches,
// at partial tiles and at one pixel.
TEST(gpu_model, convolution_plans_match_at_partial_tiles_in_both_walks) {
  BB_REQUIRE_GPU();
  print_header();
  for (const char* variant : {"unpadded", "padded"})
    for (const char* walk : {"rows", "columns"})
      for (const int n : {100, 1}) {
        const nlohmann::json params = {{"n", n}, {"walk", walk}};
        SCOPED_TRACE(std::string(variant) + " " + params.dump());
        const auto* v = bb::registry::instance().find_variant("convolution", variant);
        ASSERT_NE(v, nullptr);
        const auto p = bb::model::predict(v->plan(params));
        const auto c = compare_case(*v, params, p);
        EXPECT_EQ(c.ld.requests, static_cast<double>(p.load.requests));
        EXPECT_EQ(c.st.requests, static_cast<double>(p.store.requests));
        EXPECT_TRUE(bb::model::agrees(c.ld.per_request(), c.ld_pred))
            << "load wavefronts/request: measured " << c.ld.per_request() << ", predicted " << c.ld_pred;
      }
  std::fflush(stdout);
}
