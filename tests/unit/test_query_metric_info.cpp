// Labels and judgement of the per-kind derived metrics (ldsm_*, atom_*, ...) in compare and regress.
#include <gtest/gtest.h>

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
