// `bankbench show` puts the bank model's prediction beside the measured load wavefronts per
// request and flags a difference beyond model::allowance().
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <unistd.h>

#include "runner/query/show.hpp"
#include "runner/store/database.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bb::store;
using bb::query::output_format;

configuration_record config(int seq, const char* variant, double measured, double predicted) {
  configuration_record c;
  c.seq = seq;
  c.variant = std::string("transpose/") + variant;
  c.family = "transpose";
  c.params_json = R"({"n":4096})";
  c.launches = {{0,
                 {{"load_wavefronts_per_request", "ratio", measured, true},
                  {"predicted_load_wavefronts_per_request", "ratio", predicted, true}}}};
  return c;
}

std::string show_of(const std::vector<configuration_record>& configs, output_format format) {
  const fs::path dir = fs::temp_directory_path() / ("bb_test_show_prediction_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::ostringstream out;
  {
    auto db = database::open((dir / "db.sqlite").string());
    gpu_record g;
    g.uuid = "GPU-1";
    g.name = "H200";
    run_record r;
    r.started_at = "2026-11-21T08:30:12.123Z";
    r.bankbench_version = "0.1.0";
    r.experiment_name = "transpose";
    r.experiment_path = "experiments/transpose/transpose.yaml";
    r.command_line = "bankbench run";
    const auto run = db.begin_run(db.upsert_gpu(g), r);
    for (const auto& c : configs) db.add_configuration(run, c);
    bb::query::show_run(db, run, out, format);
  }
  fs::remove_all(dir);
  return out.str();
}

std::string line_of(const std::string& text, const std::string& start) {
  const auto at = text.find('\n' + start);
  return at == std::string::npos ? "" : text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

TEST(query_show_prediction, within_the_allowance_is_not_flagged) {
  // H200 at n = 4096: the counter adds arbitration losses (docs/bank-model.md).
  const auto text = show_of({config(0, "naive", 32.43, 32), config(1, "padded", 1.12, 1)}, output_format::table);
  EXPECT_NE(text.find("ld wf/req  pred wf/req  ld conflicts/req"), std::string::npos) << text;
  EXPECT_EQ(line_of(text, "naive").substr(0, 55), "naive    n=4096  ok           -      32.43        32.00") << text;
  EXPECT_EQ(text.find('!'), std::string::npos) << text;
}

TEST(query_show_prediction, a_mismatch_is_flagged_with_a_footnote) {
  const auto text = show_of({config(0, "naive", 16.5, 32), config(1, "padded", 1.12, 1), config(2, "swizzled", 1.3, 1)},
                            output_format::table);
  EXPECT_NE(line_of(text, "naive").find("16.50       32.00!"), std::string::npos) << text;
  EXPECT_NE(line_of(text, "padded").find("1.12        1.00 "), std::string::npos) << text;
  EXPECT_NE(line_of(text, "swizzled").find("1.30        1.00!"), std::string::npos) << text;
  EXPECT_NE(text.find("\n! measured ld wf/req differs from the bank model's prediction by more than max(5% of it, "
                      "0.25); see docs/bank-model.md\n"),
            std::string::npos)
      << text;
  const auto csv = show_of({config(0, "naive", 16.5, 32)}, output_format::csv);
  EXPECT_NE(csv.find(",load_wavefronts_per_request,predicted_load_wavefronts_per_request,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",16.5,32,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find('!'), std::string::npos) << csv;
}

TEST(query_show_prediction, runs_without_predictions_have_no_column) {
  configuration_record c = config(0, "naive", 32, 32);
  c.launches[0].values.pop_back();
  const auto text = show_of({c}, output_format::table);
  EXPECT_EQ(text.find("pred wf/req"), std::string::npos) << text;
}

} // namespace
