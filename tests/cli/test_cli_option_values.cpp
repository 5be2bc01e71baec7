// Option values a command line gets wrong: a value missing at the end, an option given twice,
// two options that exclude each other, and an empty path (an unset shell variable). Each is a
// usage error (exit 2) in bankbench's words, refused before anything is read or written.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_runner.hpp"

namespace fs = std::filesystem;

namespace {

struct refused_value {
  std::string args;    ///< the command line
  std::string message; ///< the whole first line of stderr, after "bankbench: error: "
};

void expect_values_refused(const std::vector<refused_value>& cases) {
  for (const auto& c : cases) {
    const auto r = bb::test::run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "bankbench: error: " + c.message) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
  }
}

} // namespace

TEST(cli_option_values, a_missing_value_a_repeated_option_and_exclusive_options_are_said_in_words) {
  expect_values_refused({
      {"--db /nonexistent/x.sqlite lines --top", "--top needs a value after it"},
      {"run -n --time-limit", "--time-limit needs a value after it"},
      {"list runs --db", "--db needs a value after it"},
      {"--db /nonexistent/x.sqlite show 1 --format csv -f json", "--format is given 2 times; give it once"},
      {"--db /nonexistent/x.sqlite lines --top 3 --top 4", "--top is given 2 times; give it once"},
      {"bankmap --row 1 --col 2", "--row and --col cannot be given together; give one of them"},
  });
}

TEST(cli_option_values, lines_top_is_read_by_the_number_parser) {
  // CLI11 read --top itself: -1 passed as a huge count, 1e309 was "Could not convert".
  expect_values_refused({
      {"--db /nonexistent/x.sqlite lines --top -1", "--top must be a whole number from 0 to 1000000000, got '-1'"},
      {"--db /nonexistent/x.sqlite lines --top 1e309",
       "--top must be a whole number from 0 to 1000000000, got '1e309'"},
      {"--db /nonexistent/x.sqlite lines --top nan", "--top must be a whole number from 0 to 1000000000, got 'nan'"},
  });
}

const char* const k_empty_experiment = "an experiment file or folder is named by an empty argument (''); give a "
                                       "YAML file or a folder of them, e.g. experiments/transpose";

TEST(cli_option_values, an_empty_path_is_refused_not_read_as_the_default) {
  bb::test::temp_dir tmp;
  const std::string db = "--db '" + (tmp.path / "x.sqlite").string() + "' ";
  expect_values_refused({
      {"--db '' list runs", "--db needs a database file, e.g. results/bankbench.sqlite, got an empty one"},
      {"list runs --db ''", "--db needs a database file, e.g. results/bankbench.sqlite, got an empty one"},
      {db + "report -o ''", "--out needs a file name, e.g. report.html, got an empty one"},
      {db + "export -o ''", "--out needs a file name (or - for standard output), got an empty one"},
      {db + "techniques -o ''", "--out needs a file name (or - for standard output), got an empty one"},
      {db + "baseline export main -o ''", "--out needs a file name (or - for standard output), got an empty one"},
      {db + "baseline import ''", "the file argument needs a JSON file `baseline export` wrote, got an empty one"},
      {db + "baseline import b.json --name ''", "--name needs a baseline name, e.g. main, got an empty one"},
      {db + "history naive --svg ''", "--svg needs a file name, e.g. history.svg, got an empty one"},
      {"bankmap --variant transpose/naive --svg ''", "--svg needs a file name, e.g. bankmap.svg, got an empty one"},
      {"bankmap --variant naive --experiment ''", "--experiment needs an experiment file, got an empty one"},
      // merge --into '' merged into the default database, results/bankbench.sqlite
      {db + "merge other.sqlite --into ''", "--into needs a database file, e.g. merged.sqlite, got an empty one"},
      {db + "merge ''", "the sources argument needs a database file to bring in, got an empty one"},
      // exit 5 before: "filesystem error: cannot make absolute path"
      {"slurm status ''", "the sweep argument needs the sweep folder `slurm submit --sweep` made, got an empty one"},
      {"slurm resubmit ''", "the sweep argument needs the sweep folder `slurm submit --sweep` made, got an empty one"},
      {"slurm collect ''", "the sweep argument needs the sweep folder `slurm submit --sweep` made, got an empty one"},
      {"slurm collect s --into ''", "--into needs a database file, e.g. merged.sqlite, got an empty one"},
      {"slurm submit --sweep '' -N 2", "--sweep needs a folder on the file system the nodes share, got an empty one"},
      // "no such experiment file or folder: " with nothing after it before
      {db + "run --backend model ''", k_empty_experiment},
      {"validate experiments/transpose ''", k_empty_experiment},
      {"compile --arch sm_90 ''", k_empty_experiment},
  });
  EXPECT_FALSE(fs::exists(tmp.path / "x.sqlite"));
}

TEST(cli_option_values, bankmap_experiment_names_a_missing_file_a_folder_or_a_cuda_source_as_run_does) {
  expect_values_refused({
      {"bankmap --variant naive --experiment nope.yaml",
       "no such experiment file or folder: nope.yaml (relative to " BB_SOURCE_DIR
       "; run bankbench from the checkout, or name the files)"},
      {"bankmap --variant naive --experiment experiments/source",
       "--experiment takes one experiment file; experiments/source holds 2: name one of them"},
      {"bankmap --variant naive --experiment experiments/source/transpose.cu",
       "experiments/source/transpose.cu is a CUDA source, not an experiment file; give the YAML file that names it "
       "(source: file: transpose.cu)"},
  });
}

TEST(cli_option_values, an_empty_metric_or_reference_is_refused_not_read_as_the_default) {
  // Each was taken as no -m (or no --reference) at all: the default columns, exit 0.
  expect_values_refused({
      {"--db /nonexistent/x.sqlite compare variants 1 -m ''",
       "--metric needs a metric name, e.g. load_wavefronts_per_request, got an empty one"},
      {"--db /nonexistent/x.sqlite compare variants 1 --reference ''",
       "--reference needs a variant name, e.g. naive, got an empty one"},
      {"--db /nonexistent/x.sqlite regress -b 1 -m ''",
       "--metric needs a metric name, e.g. load_wavefronts_per_request, got an empty one"},
  });
  bb::test::temp_dir tmp;
  const std::string db = "--db '" + (tmp.path / "m.sqlite").string() + "' ";
  ASSERT_EQ(bb::test::run_cli("-q " + db + "run --backend model experiments/transpose/transpose.yaml").exit_code, 0);
  expect_values_refused({
      {db + "compare variants 1 -m ,",
       "-m ',' names no metric; give names separated by commas, e.g. -m load_wavefronts_per_request,median_ns"},
      {db + "regress -b 1 -m load_wavefronts_per_request -m ,,",
       "-m ',,' names no metric; give names separated by commas, e.g. -m load_wavefronts_per_request,median_ns"},
  });
  EXPECT_EQ(bb::test::run_cli(db + "compare variants 1 -m load_wavefronts_per_request,").exit_code, 0);
}

TEST(cli_option_values, a_param_given_twice_with_two_values_is_refused_in_history_and_lines) {
  // Before: "no run ... has a configuration of variant 'transpose/naive' with those parameters".
  bb::test::temp_dir tmp;
  const std::string db = "--db '" + (tmp.path / "p.sqlite").string() + "' ";
  ASSERT_EQ(bb::test::run_cli("-q " + db + "run --backend model experiments/transpose/transpose.yaml").exit_code, 0);
  const std::string twice = "--param n is given twice, n=1024 and n=4096; a configuration has one value of each "
                            "parameter: give it once";
  expect_values_refused({
      {db + "history transpose/naive -p n=1024 -p n=4096", twice},
      {db + "lines -p n=1024 -p n=4096", twice},
  });
  EXPECT_EQ(bb::test::run_cli(db + "history transpose/naive -p n=1024 -p n=1024").exit_code, 0);
}

TEST(cli_option_values, a_folder_given_for_a_database_is_named_whichever_option_gave_it) {
  bb::test::temp_dir tmp;
  const std::string folder = tmp.path.string();
  const std::string db = folder + "/a.sqlite";
  ASSERT_EQ(bb::test::run_cli("--db '" + db + "' run --backend model experiments/transpose/transpose.yaml").exit_code,
            0);
  // merge --into named the folder "--db" before
  const std::string message = folder + " is a folder; a database is a file, e.g. " + folder + "/bankbench.sqlite";
  for (const std::string& args : {"--db '" + folder + "' list runs", "merge '" + db + "' --into '" + folder + "'"}) {
    const auto r = bb::test::run_cli(args);
    EXPECT_EQ(r.exit_code, 4) << args << "\n" << r.err;
    EXPECT_EQ(r.err, "bankbench: error: " + message + "\n") << args;
  }
}
