// `bankbench lines`: instructions grouped by source line and ranked by excess, shares, the
// hardware conflicts no line accounts for, and which configurations are chosen.
#include <gtest/gtest.h>

#include <string>

#include "../data/results/lines_fixture.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/query/lines.hpp"

namespace {

using namespace bb::test::results;
using namespace bb::test::lines;
using bb::query::lines_query;
using bb::query::select_lines;

std::string no_text(const std::string&, int) { return ""; }

template <class F> std::string usage_message(F f) {
  try {
    f();
  } catch (const bb::usage_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no bb::usage_error was thrown";
  return {};
}

TEST(query_lines, instructions_of_one_line_are_summed_and_lines_ranked_by_excess) {
  const auto lines = bb::query::rank_lines(two_way_lines("probe.cu").rows, no_text);
  ASSERT_EQ(lines.size(), 2U);
  const auto& loads = lines[0];
  EXPECT_EQ(loads.line, 21);
  EXPECT_EQ(loads.opcodes, "LDS x4");
  EXPECT_EQ(loads.kinds, "lds");
  EXPECT_EQ(loads.instructions, 4);
  EXPECT_EQ(loads.executions, 4096U);
  EXPECT_EQ(loads.wavefronts, 8192U);
  EXPECT_EQ(loads.ideal, 4096U);
  EXPECT_EQ(loads.excess, 4096U);
  ASSERT_TRUE(loads.share.has_value());
  EXPECT_DOUBLE_EQ(*loads.share, 0.8);
  const auto& store = lines[1];
  EXPECT_EQ(store.line, 18);
  EXPECT_EQ(store.opcodes, "STS");
  EXPECT_EQ(store.excess, 1024U);
  EXPECT_DOUBLE_EQ(*store.share, 0.2);
}

TEST(query_lines, without_excess_lines_have_no_share_and_rank_by_wavefronts) {
  const auto lines = bb::query::rank_lines(hist_lines("probe.cu").rows, no_text);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[0].file, "device_atomic_functions.hpp");
  EXPECT_EQ(lines[0].opcodes, "ATOMS");
  EXPECT_EQ(lines[0].wavefronts, 1024U);
  EXPECT_EQ(lines[1].line, 35);
  EXPECT_EQ(lines[2].line, 39);
  for (const auto& l : lines) {
    EXPECT_EQ(l.excess, 0U);
    EXPECT_FALSE(l.share.has_value()) << l.line;
  }
}

TEST(query_lines, hardware_conflicts_are_the_whole_counter_or_the_sum_of_its_operations) {
  using bb::query::hardware_conflicts_of;
  const std::string ldsm = bb::metrics::k_ldsm_conflicts; // a part of op_ld: not added again
  const auto parts = hardware_conflicts_of({{bb::metrics::k_ld_conflicts, 4096},
                                            {bb::metrics::k_st_conflicts, 1024},
                                            {ldsm, 512},
                                            {"load_conflicts", 4096}});
  ASSERT_TRUE(parts.has_value());
  EXPECT_DOUBLE_EQ(parts->total, 5120);
  ASSERT_EQ(parts->parts.size(), 2U);
  EXPECT_EQ(parts->parts[0].first, "op_ld");
  EXPECT_EQ(parts->parts[1].first, "op_st");
  const auto whole = hardware_conflicts_of(
      {{bb::metrics::k_ld_conflicts, 4096}, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 5200}});
  ASSERT_TRUE(whole.has_value());
  EXPECT_DOUBLE_EQ(whole->total, 5200);
  EXPECT_FALSE(hardware_conflicts_of({{"load_conflicts", 4096}, {bb::metrics::k_ld_wavefronts, 8192}}).has_value());
  // The residual is what the counters hold beyond the lines' excess.
  bb::query::configuration_lines c;
  c.excess = 5120;
  EXPECT_FALSE(c.residual().has_value());
  c.hardware = whole;
  EXPECT_DOUBLE_EQ(*c.residual(), 80);
}

// cp.async's conflicts, counted apart from op_ld and op_st: a cp_async/columns configuration of
// the access_kinds set on an H100 (op_ld 5442, LDGSTS 917504, the lines' excess 917504).
TEST(query_lines, cp_async_conflicts_are_part_of_the_hardware_total) {
  const auto h = bb::query::hardware_conflicts_of({{bb::metrics::k_ld_conflicts, 5442},
                                                   {bb::metrics::k_st_conflicts, 0},
                                                   {bb::metrics::k_ldgsts_conflicts, 917504}});
  ASSERT_TRUE(h.has_value());
  EXPECT_DOUBLE_EQ(h->total, 922946);
  ASSERT_EQ(h->parts.size(), 3U);
  EXPECT_EQ(h->parts[2].first, "op_ldgsts");
  bb::query::configuration_lines c;
  c.excess = 917504;
  c.hardware = h;
  EXPECT_DOUBLE_EQ(*c.residual(), 5442);
}

TEST(query_lines, names_are_demangled) {
  EXPECT_EQ(bb::query::demangled("_Z7two_wayPfi"), "two_way(float*, int)");
  EXPECT_EQ(bb::query::demangled("_Z4histPj"), "hist(unsigned int*)");
  EXPECT_EQ(bb::query::demangled("histogram"), "histogram");
  EXPECT_EQ(bb::query::demangled("_Znot a name"), "_Znot a name");
}

TEST(query_lines, latest_run_gives_each_collected_configuration_with_its_source_and_residual) {
  temp_folder tmp;
  const std::string path = tmp.file("lines.sqlite");
  const std::string source = build_lines_fixture(path, tmp.path().string());
  const auto db = bb::store::database::open_for_query(path);
  const auto all = select_lines(db, lines_query{});
  ASSERT_EQ(all.size(), 3U);
  const auto& two_way = all[0];
  EXPECT_EQ(two_way.run_id, 2);
  EXPECT_EQ(two_way.variant, "source/two_way");
  EXPECT_EQ(two_way.kernel, "two_way(float*, int)");
  EXPECT_EQ(two_way.excess, 5120U);
  ASSERT_EQ(two_way.lines.size(), 2U);
  EXPECT_EQ(two_way.lines[0].file, source);
  EXPECT_EQ(two_way.lines[0].text, "for (int k = 0; k < 4; ++k) acc += tile[(slot(t) + 64 * k) % k_words];");
  EXPECT_EQ(two_way.lines[1].text, "tile[slot(t)] = static_cast<float>(t);");
  ASSERT_TRUE(two_way.hardware.has_value());
  EXPECT_DOUBLE_EQ(two_way.hardware->total, 5120);
  EXPECT_DOUBLE_EQ(*two_way.residual(), 0);

  const auto& hist = all[1];
  EXPECT_EQ(hist.kernel, "hist(unsigned int*)");
  EXPECT_FALSE(hist.hardware.has_value()); // no counters stored
  EXPECT_EQ(hist.lines[0].text, "");       // device_atomic_functions.hpp is not on disk here
  EXPECT_EQ(hist.lines[1].text, "if (t < 32) counts[t] = 0;");
  EXPECT_EQ(hist.lines[2].text, "if (t < 32) atomicAdd(&bins[t], counts[t]);");

  EXPECT_EQ(all[2].status, bb::store::lines_status::no_line_info);
  EXPECT_TRUE(all[2].lines.empty());
}

TEST(query_lines, filters_choose_configurations_and_runs_without_lines_say_how_to_collect_them) {
  temp_folder tmp;
  const std::string path = tmp.file("lines.sqlite");
  build_lines_fixture(path, tmp.path().string());
  const auto db = bb::store::database::open_for_query(path);
  lines_query q;
  q.variant = "hist";
  auto chosen = select_lines(db, q);
  ASSERT_EQ(chosen.size(), 1U);
  EXPECT_EQ(chosen[0].seq, 1);
  q.variant = "source/two_way";
  q.params = {{"blocks", "128"}, {"threads", "256"}};
  chosen = select_lines(db, q);
  ASSERT_EQ(chosen.size(), 1U);
  EXPECT_EQ(chosen[0].seq, 0);
  q.params = {{"blocks", "64"}};
  EXPECT_EQ(usage_message([&] { select_lines(db, q); }),
            "no configuration of latest matches --variant source/two_way -p blocks=64; `bankbench show latest` lists "
            "them");
  q = lines_query{};
  q.experiment = "transpose";
  EXPECT_EQ(usage_message([&] { select_lines(db, q); }),
            "no run of experiment 'transpose' among latest; `bankbench list runs` lists the runs");
  q = lines_query{};
  q.run = "1";
  EXPECT_EQ(usage_message([&] { select_lines(db, q); }),
            "run 1 has no per-line data; collect it with: bankbench run probe/probe.yaml --lines");
}

} // namespace
