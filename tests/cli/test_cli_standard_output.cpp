// Standard output is an output file: every command that prints results exits 6 with a message
// when they cannot be written (a full device), and `-o` on a device or FIFO writes into it rather
// than replacing it with a file.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "cli_runner.hpp"

namespace {

using namespace bb::test::results;

/// Whether /dev/full is a character device whose writes fail with ENOSPC; on some machines
/// (containers, sandboxes) it is a plain file or takes the bytes.
bool dev_full_is_full() {
  struct stat st {};
  if (::stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode)) return false;
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool full = ::write(fd, "x", 1) < 0 && errno == ENOSPC;
  ::close(fd);
  return full;
}

bool is_char_device(const char* path) {
  struct stat st {};
  return ::stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

struct cli_standard_output : ::testing::Test {
  temp_folder tmp;
  std::string db;
  void SetUp() override {
    db = tmp.file("f.sqlite");
    build_fixture(db);
    const auto b = bb::test::run_cli("-q --db '" + db + "' baseline save main 1");
    ASSERT_EQ(b.exit_code, 0) << b.err;
  }
  /// `args` with stdout on /dev/full: exit code and stderr.
  bb::test::cli_result to_full(const std::string& args) {
    const std::string err = tmp.file("err");
    const std::string cmd = "cd '" BB_SOURCE_DIR "' && CUDA_VISIBLE_DEVICES= '" BB_BINARY "' --db '" + db + "' " +
                            args + " >/dev/full 2>'" + err + "'";
    const int status = std::system(cmd.c_str());
    bb::test::cli_result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = bb::test::slurp(err);
    return r;
  }
};

TEST_F(cli_standard_output, every_command_that_prints_exits_6_on_a_full_device) {
  if (!dev_full_is_full()) GTEST_SKIP() << "/dev/full is not a full character device here";
  for (const std::string args : {"list runs",
                                 "list families",
                                 "list metrics",
                                 "list gpus",
                                 "export",
                                 "export -f json",
                                 "show 1",
                                 "compare variants 1",
                                 "compare runs 1 6",
                                 "regress -b 1 -c 1",
                                 "history padded -p n=1024",
                                 "techniques",
                                 "baseline list",
                                 "baseline show main",
                                 "baseline export main",
                                 "bankmap --row 3",
                                 "validate experiments/transpose/transpose.yaml",
                                 "run -n experiments/transpose/transpose.yaml",
                                 "--help",
                                 "run --help"}) {
    const auto r = to_full(args);
    EXPECT_EQ(r.exit_code, 6) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("bankbench: error: cannot write to standard output: No space left on device\n"),
              std::string::npos)
        << args << "\n"
        << r.err;
  }
}

TEST_F(cli_standard_output, an_output_file_on_a_device_is_written_in_place_and_stays_a_device) {
  if (!dev_full_is_full()) GTEST_SKIP() << "/dev/full is not a full character device here";
  for (const std::string args : {"report -o /dev/full", "export -o /dev/full", "techniques -o /dev/full",
                                 "baseline export main -o /dev/full", "bankmap --svg /dev/full"}) {
    const auto r = bb::test::run_cli("--db '" + db + "' " + args);
    EXPECT_EQ(r.exit_code, 6) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("/dev/full: write failed: No space left on device"), std::string::npos) << args << r.err;
    EXPECT_TRUE(is_char_device("/dev/full")) << args << ": /dev/full was replaced";
  }
}

TEST_F(cli_standard_output, an_output_file_on_a_fifo_is_written_into_it) {
  const std::string fifo = tmp.file("pipe"), got = tmp.file("got.csv");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string cmd = "cat '" + fifo + "' > '" + got + "' & '" BB_BINARY "' --db '" + db + "' export -o '" + fifo +
                          "' 2>/dev/null; rc=$?; wait; exit $rc";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced by a file";
  const auto direct = bb::test::run_cli("--db '" + db + "' export");
  EXPECT_EQ(bb::test::slurp(got), direct.out);
}

TEST_F(cli_standard_output, an_output_file_that_is_a_folder_is_refused) {
  const auto r = bb::test::run_cli("--db '" + db + "' export -o '" + tmp.path().string() + "'");
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_EQ(r.err, "bankbench: error: " + tmp.path().string() + ": is a folder; name a file to write (e.g. " +
                       (tmp.path() / "out").string() + ")\n");
}

// A picture's file that names a folder ends the command before its table is printed.
TEST_F(cli_standard_output, an_svg_file_that_is_a_folder_is_refused_before_the_table) {
  const auto map = bb::test::run_cli("bankmap --svg '" + tmp.path().string() + "'");
  EXPECT_EQ(map.exit_code, 6) << map.err;
  EXPECT_EQ(map.out, "");
  EXPECT_NE(map.err.find(": is a folder; name a file to write"), std::string::npos) << map.err;
  const auto hist = bb::test::run_cli("--db '" + db + "' history padded -p n=1024 --svg '" + tmp.path().string() + "'");
  EXPECT_EQ(hist.exit_code, 6) << hist.err;
  EXPECT_EQ(hist.out, "");
}

} // namespace
