// Labels and judgement of the per-kind derived metrics (ldsm_*, atom_*, ...) in compare and regress.
#include <gtest/gtest.h>

#include "runner/common/error.hpp"
#include "runner/query/metric_info.hpp"

using bb::query::describe_metric;

TEST(query_metric_info, per_kind_metrics_get_labels_and_ratios_are_judged) {
  const auto wf = describe_metric("ldsm_wavefronts_per_request");
  EXPECT_EQ(wf.label, "ldsm wf/req");
  EXPECT_EQ(wf.decimals, 2);
  EXPECT_TRUE(wf.judged);
  const auto req = describe_metric("atom_requests");
  EXPECT_EQ(req.label, "atom req");
  EXPECT_FALSE(req.judged); // requests are compared, not judged as a regression, like load_requests
  EXPECT_EQ(describe_metric("gmma_excess_wavefronts_per_request").label, "gmma excess/req");
  EXPECT_EQ(describe_metric("ldgsts_conflicts_per_request").label, "ldgsts conflicts/req");
  EXPECT_EQ(describe_metric("ldsmx_requests").label, "ldsmx_requests"); // not a kind
  EXPECT_EQ(describe_metric("load_wavefronts_per_request").label, "ld wf/req");
}

TEST(query_metric_info, metric_names_are_checked_against_the_database) {
  const std::vector<std::string> stored{"load_conflicts_per_request", "load_wavefronts_per_request"};
  EXPECT_NO_THROW(
      bb::query::check_metric_names({"load_conflicts_per_request", "median_ns", "bandwidth_gbps"}, stored, "r.sqlite"));
  const auto refusal = [&](const std::string& m) -> std::string {
    try {
      bb::query::check_metric_names({m}, stored, "r.sqlite");
    } catch (const bb::usage_error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(refusal("load_wavefront_per_request"), "-m load_wavefront_per_request: no run in r.sqlite holds a metric "
                                                   "of this name; did you mean 'load_wavefronts_per_request'?");
  EXPECT_EQ(refusal("nosuch"), "-m nosuch: no run in r.sqlite holds a metric of this name; `bankbench list metrics` "
                               "lists the derived metrics");
  EXPECT_EQ(refusal("store_conflicts_per_request"), "-m store_conflicts_per_request: no run in r.sqlite holds a "
                                                    "metric of this name; no run collected it (see the experiment's "
                                                    "`metrics:`)");
}
