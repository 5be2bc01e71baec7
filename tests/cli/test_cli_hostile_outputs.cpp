// Output files on a full disk: every command that writes a file exits 6 naming the file and the
// cause, and the file written before is left as it was.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "cli_db.hpp"

namespace fs = std::filesystem;

namespace {

struct hostile_outputs : ::testing::Test {
  bb::test::temp_dir tmp;
  std::string db = (tmp.path / "r.sqlite").string();
  void SetUp() override {
    const auto r = bb::test::run_cli("-q --db '" + db + "' run --backend model experiments/transpose/transpose.yaml",
                                     "CUDA_VISIBLE_DEVICES=");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto b = bb::test::run_cli("-q --db '" + db + "' baseline save model-base");
    ASSERT_EQ(b.exit_code, 0) << b.err;
  }
  /// Writes `previous` to `file` (alone in its folder), runs `args` with writes failing after 2
  /// bytes, and checks the outcome.
  void expect_refused_and_kept(const fs::path& file, const std::string& args) {
    fs::create_directories(file.parent_path());
    const std::string previous = "previous contents, to be kept\n";
    {
      std::ofstream f(file, std::ios::binary);
      f << previous;
    }
    const auto r = bb::test::run_cli("--db '" + db + "' " + args, "BB_TEST_WRITE_LIMIT=2");
    EXPECT_EQ(r.exit_code, 6) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(file.string()), std::string::npos) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(bb::test::slurp(file), previous) << args;
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(file.parent_path())) ++files;
    EXPECT_EQ(files, 1u) << args << ": a temporary file was left behind";
  }
};

} // namespace

TEST_F(hostile_outputs, every_output_file_is_kept_whole_on_a_full_disk) {
  const auto out = tmp.path / "out";
  const auto in = [&](const char* folder, const char* name) { return out / folder / name; };
  expect_refused_and_kept(in("1", "m.csv"), "export -o '" + in("1", "m.csv").string() + "'");
  expect_refused_and_kept(in("2", "s.json"), "export -t samples -f json -o '" + in("2", "s.json").string() + "'");
  expect_refused_and_kept(in("3", "r.html"), "report --out '" + in("3", "r.html").string() + "'");
  expect_refused_and_kept(in("4", "t.html"), "techniques -o '" + in("4", "t.html").string() + "'");
  expect_refused_and_kept(in("5", "b.json"), "baseline export model-base --out '" + in("5", "b.json").string() + "'");
  expect_refused_and_kept(in("6", "h.svg"), "history naive -p n=1024 -m load_wavefronts_per_request --svg '" +
                                                in("6", "h.svg").string() + "'");
  expect_refused_and_kept(in("7", "k.svg"),
                          "bankmap --rows 32 --cols 32 --type float --col 0 --svg '" + in("7", "k.svg").string() + "'");
}

TEST_F(hostile_outputs, without_a_fault_the_same_commands_replace_the_file) {
  const auto file = tmp.path / "m.csv";
  {
    std::ofstream f(file);
    f << "old\n";
  }
  const auto r = bb::test::run_cli("--db '" + db + "' export -o '" + file.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(bb::test::slurp(file).rfind("run_id,", 0), 0u) << bb::test::slurp(file).substr(0, 80);
}

TEST_F(hostile_outputs, standard_output_on_a_full_device_is_an_error) {
  struct stat st {};
  if (::stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode)) GTEST_SKIP() << "/dev/full is not a device here";
  const auto err = tmp.path / "err";
  const std::string cmd = "'" BB_BINARY "' --db '" + db + "' export >/dev/full 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 6);
  EXPECT_NE(bb::test::slurp(err).find("cannot write to standard output: No space left on device"), std::string::npos)
      << bb::test::slurp(err);
}

// A real full file system: a 64 KiB tmpfs (needs root; skipped otherwise).
TEST_F(hostile_outputs, a_full_tmpfs_keeps_the_previous_export) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  const auto big = (tmp.path / "big.sqlite").string(); // 900 configurations: about 1 MiB of csv
  const auto run = bb::test::run_cli("-q --db '" + big + "' run --backend model '" +
                                     bb::test::sweep_experiment(tmp.path, "big", 300) + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto mnt = tmp.path / "small";
  fs::create_directories(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64k") != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
  const auto file = mnt / "metrics.csv";
  {
    std::ofstream f(file);
    f << "good\n";
  }
  const auto r = bb::test::run_cli("--db '" + big + "' export -o '" + file.string() + "'");
  const auto kept = bb::test::slurp(file);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(mnt)) ++files;
  ::umount(mnt.c_str());
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(kept, "good\n");
  EXPECT_EQ(files, 1u);
}
