// The baseline document: made from runs, checked when read, and read back to the same values.
#include <gtest/gtest.h>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/common/error.hpp"
#include "runner/query/baseline_doc.hpp"
#include "runner/query/noise.hpp"
#include "runner/query/selector.hpp"

namespace {

using namespace bb::query;
using namespace bb::test::results;

std::string refusal(const nlohmann::json& doc) {
  try {
    check_baseline_document(doc, "b.json");
  } catch (const bb::usage_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(query_baseline_doc, round_trip_keeps_values_samples_and_noise) {
  temp_folder tmp;
  build_fixture(tmp.file("f.sqlite"));
  const auto db = bb::store::database::open_existing(tmp.file("f.sqlite"));
  const side run1 = select_side(db, "1", {{}, true});
  noise_table noise;
  noise[noise_key(run1.rows[4], "load_conflicts_per_request")] = 0.012;
  const auto doc = make_baseline_document("main", run1, noise, "run 1", "2026-11-05T00:00:00.000Z");
  const auto text = doc.dump(2);
  const auto back = nlohmann::json::parse(text);
  EXPECT_EQ(refusal(back), "accepted");
  const side s = side_of_baseline(back);
  EXPECT_EQ(s.label, "baseline main");
  EXPECT_TRUE(s.is_baseline);
  ASSERT_EQ(s.rows.size(), 9U);
  EXPECT_EQ(s.rows[4].variant, "transpose/padded");
  EXPECT_EQ(s.rows[4].arch, "sm_90");
  EXPECT_DOUBLE_EQ(s.rows[4].metrics.at("load_conflicts_per_request").max, 62061.0 / 524288);
  EXPECT_DOUBLE_EQ(s.rows[4].metrics.at("load_requests").mean, 524288);
  EXPECT_EQ(s.rows[4].metrics.count("load_conflicts"), 0U); // raw counts stay out
  EXPECT_EQ(s.rows[4].samples_ns, run1.rows[4].samples_ns);
  EXPECT_EQ(s.stored_noise.at(noise_key(s.rows[4], "load_conflicts_per_request")), 0.012);
  // Raw CUPTI names and predictions stay out of the file.
  EXPECT_EQ(s.rows[4].metrics.count("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), 0U);
  EXPECT_EQ(s.rows[4].metrics.count("predicted_load_wavefronts_per_request"), 0U);
  EXPECT_EQ(back["runs"][0]["git_commit"], k_commit_1);
  const auto entry = baseline_entry_of(back, "run 1");
  EXPECT_EQ(entry.experiments, "transpose");
  EXPECT_EQ(entry.architectures, "sm_90");
}

TEST(query_baseline_doc, malformed_and_newer_documents_are_refused_with_the_reason) {
  EXPECT_EQ(refusal(nlohmann::json::array()), "b.json: not a bankbench baseline: the file does not hold a JSON object");
  EXPECT_EQ(refusal({{"name", "x"}}), "b.json: not a bankbench baseline: no \"bankbench_baseline\" format number");
  EXPECT_EQ(refusal({{"bankbench_baseline", 2}, {"name", "x"}}),
            "b.json: written by a newer bankbench (baseline format 2, this build knows 1)");
  nlohmann::json doc = {{"bankbench_baseline", 1},
                        {"name", "x"},
                        {"runs", nlohmann::json::array()},
                        {"configurations",
                         {{{"experiment", "t"},
                           {"arch", "sm_90"},
                           {"variant", "t/v"},
                           {"status", "ok"},
                           {"params", nlohmann::json::object()},
                           {"metrics", {{"load_requests", {{"mean", "many"}}}}}}}}};
  EXPECT_EQ(refusal(doc), "b.json: not a bankbench baseline: configurations[0]: metrics.load_requests: \"mean\" is "
                          "missing or has the wrong type");
  // A status the database could not hold is refused before anything reads it.
  doc["configurations"][0]["metrics"] = nlohmann::json::object();
  doc["configurations"][0]["status"] = "great";
  EXPECT_EQ(refusal(doc), "b.json: not a bankbench baseline: configurations[0]: \"status\" 'great' is not a "
                          "configuration status");
  doc["configurations"][0]["status"] = "unverified";
  EXPECT_EQ(refusal(doc), "accepted");
}

TEST(query_baseline_doc, a_format_below_1_and_a_configuration_given_twice_with_other_values_are_refused) {
  EXPECT_EQ(refusal({{"bankbench_baseline", -1}, {"name", "x"}}),
            "b.json: not a bankbench baseline: \"bankbench_baseline\" is -1; formats start at 1");
  EXPECT_EQ(refusal({{"bankbench_baseline", 0}, {"name", "x"}}),
            "b.json: not a bankbench baseline: \"bankbench_baseline\" is 0; formats start at 1");
  const nlohmann::json entry = {{"experiment", "t"},
                                {"arch", "sm_90"},
                                {"variant", "t/v"},
                                {"status", "ok"},
                                {"params", {{"n", 1024}, {"tile", 32}}},
                                {"metrics", {{"load_requests", {{"mean", 4}, {"min", 4}, {"max", 4}}}}}};
  nlohmann::json doc = {
      {"bankbench_baseline", 1}, {"name", "x"}, {"runs", nlohmann::json::array()}, {"configurations", {entry, entry}}};
  EXPECT_EQ(refusal(doc), "accepted"); // the same entry twice says one thing
  doc["configurations"][1]["metrics"]["load_requests"]["mean"] = 8;
  doc["configurations"][1]["params"] = {{"tile", 32}, {"n", 1024}}; // the same parameters in another order
  EXPECT_EQ(refusal(doc), "b.json: not a bankbench baseline: configurations[0] and configurations[1] are the same "
                          "configuration (t sm_90 t/v {\"n\":1024,\"tile\":32}) with different values; keep one "
                          "of them");
  doc["configurations"][1]["params"]["n"] = 4096;
  EXPECT_EQ(refusal(doc), "accepted");
}

} // namespace
