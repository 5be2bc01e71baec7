// Experiment files: identity (unique names, one document, checkable expectations) and bounds
// (regular files only, 1 MiB, n log n in the size of exclude lists).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "cli_db.hpp"

namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

const char* k_transpose = "description: d\nfamily: transpose\nvariants: [naive]\n";

/// Runs validate, and fails the test if it takes more than `seconds`.
bb::test::cli_result validate(const std::string& args, double seconds = 5) {
  const auto t0 = std::chrono::steady_clock::now();
  auto r = bb::test::run_cli("validate " + args);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, seconds) << "validate " << args;
  return r;
}

} // namespace

TEST(cli_hostile_files, two_files_of_one_name_are_refused_naming_both) {
  bb::test::temp_dir tmp;
  write(tmp.path / "a.yaml", std::string("name: same\n") + k_transpose);
  write(tmp.path / "b.yaml", std::string("# the second\nname: same\n") + k_transpose);
  const auto r = validate("'" + tmp.path.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find((tmp.path / "b.yaml").string() +
                       ":2:1: error: name: experiment name 'same' is already used by " +
                       (tmp.path / "a.yaml").string()),
            std::string::npos)
      << r.err;
  // run refuses the same before writing anything
  const auto db = tmp.path / "never.sqlite";
  const auto run = bb::test::run_cli("--db '" + db.string() + "' run --backend model '" +
                                     (tmp.path / "a.yaml").string() + "' '" + (tmp.path / "b.yaml").string() + "'");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_FALSE(fs::exists(db));
}

TEST(cli_hostile_files, a_file_named_twice_is_loaded_once_not_refused_as_its_own_namesake) {
  // Before: "name: experiment name 'same' is already used by .../a.yaml" about a.yaml itself.
  bb::test::temp_dir tmp;
  write(tmp.path / "a.yaml", std::string("name: same\n") + k_transpose);
  const std::string file = (tmp.path / "a.yaml").string();
  const std::string twice = "'" + tmp.path.string() + "' '" + file + "' '" + tmp.path.string() + "/./a.yaml'";
  const auto r = validate(twice);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, file + ": ok (same, 1 configurations, 0 expectations)\n");
  const auto db = tmp.path / "once.sqlite";
  const auto run = bb::test::run_cli("-q --db '" + db.string() + "' run --backend model " + twice);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(bb::test::query_text(db.string(), "SELECT count(*) FROM runs"), "1");
}

TEST(cli_hostile_files, fifos_devices_and_sockets_are_refused_at_once) {
  bb::test::temp_dir tmp;
  const auto fifo = tmp.path / "pipe.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = validate("'" + fifo.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(fifo.string() + ": error: a FIFO (named pipe), not an experiment file"), std::string::npos)
      << r.err;

  r = validate("/dev/zero");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("/dev/zero: error: a device, not an experiment file"), std::string::npos) << r.err;

  const auto sock_path = tmp.path / "s.yaml";
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock_path.c_str());
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  r = validate("'" + sock_path.string() + "'");
  ::close(sock);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("a socket, not an experiment file"), std::string::npos) << r.err;
}

// An experiment's check file that is a FIFO (it said "cannot find") or a device is named for what
// it is, and nothing waits on the FIFO.
TEST(cli_hostile_files, a_check_or_input_file_that_is_a_fifo_or_a_device_is_named_for_what_it_is) {
  bb::test::temp_dir tmp;
  ASSERT_EQ(::mkfifo((tmp.path / "expected.bin").c_str(), 0600), 0);
  const auto yaml = tmp.path / "e.yaml";
  std::ofstream(yaml) << "name: e\ndescription: d\nsource:\n  file: " << BB_TEST_DATA
                      << "/source/good.cu\n  grid: 4\n  block: 256\n  args:\n"
                         "    - {buffer: in, type: float, count: n, init: {file: /dev/zero}}\n"
                         "    - {buffer: out, type: float, count: n, output: true}\n"
                         "    - {scalar: n, type: int32}\n"
                         "variants:\n  - {name: base, kernel: \"scale<2>\", check: {file: expected.bin}}\n"
                         "axes: {n: [1024]}\n";
  const auto r = validate("--no-compile '" + yaml.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("e.yaml:8:56: error: source.args[0].init.file: the input file '/dev/zero' is a character "
                       "device, not a regular file (name the file itself)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("e.yaml:12:52: error: variants[0].check.file: the expected-output file 'expected.bin' is a "
                       "FIFO, not a regular file (name the file itself)"),
            std::string::npos)
      << r.err;
}

TEST(cli_hostile_files, a_file_over_one_mebibyte_is_refused_unread) {
  bb::test::temp_dir tmp;
  const auto big = tmp.path / "big.yaml";
  write(big, "name: big\n" + std::string(k_transpose) + "# " + std::string(2u << 20, 'x') + "\n");
  const auto r = validate("'" + big.string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("experiment files are limited to 1048576 bytes (1 MiB)"), std::string::npos) << r.err;
}

// 10,000 x 2 values and an exclude list of 10,000 entries (every other combination): validate
// answers in under a second, and the sweep keeps the other 10,000.
// A guard against matching that grows with entries x configurations (2 * 10^8 pairs here), not a
// speed target: on a 2-core machine that was building at the same time this took 0.8 to 1.4 s.
TEST(cli_hostile_files, a_ten_thousand_entry_exclude_list_validates_without_quadratic_work) {
  bb::test::temp_dir tmp;
  const int rows[] = {8, 16};
  std::string text = "name: excluded\ndescription: d\nfamily: transpose\nvariants: [naive]\naxes:\n  n: [";
  for (int i = 1; i <= 10000; ++i) text += (i > 1 ? ", " : "") + std::to_string(4 * i);
  text += "]\n  block_rows: [8, 16]\nexclude:\n";
  int entries = 0;
  for (int i = 1; i <= 10000; ++i)
    for (int b = 0; b < 2; ++b)
      if ((i + b) % 2 == 0) {
        text += "  - {n: " + std::to_string(4 * i) + ", block_rows: " + std::to_string(rows[b]) + "}\n";
        ++entries;
      }
  ASSERT_EQ(entries, 10000);
  write(tmp.path / "e.yaml", text);
  const auto r = validate("'" + (tmp.path / "e.yaml").string() + "'", 5.0);
  EXPECT_EQ(r.exit_code, 0) << r.err.substr(0, 2000);
  EXPECT_NE(r.out.find("ok (excluded, 10000 configurations"), std::string::npos) << r.out;
  // and the right ones: n = 4 (i = 1) keeps block_rows 8; n = 8 keeps 16
  const auto dry = bb::test::run_cli("run --dry-run '" + (tmp.path / "e.yaml").string() + "'");
  EXPECT_EQ(dry.exit_code, 0) << dry.err.substr(0, 2000);
  EXPECT_EQ(std::count(dry.out.begin(), dry.out.end(), '\n'), 10000);
  EXPECT_NE(dry.out.find("transpose/naive block_rows=8 n=4 tile"), std::string::npos) << dry.out.substr(0, 500);
  EXPECT_EQ(dry.out.find("transpose/naive block_rows=16 n=4 tile"), std::string::npos);
  EXPECT_EQ(dry.out.find("transpose/naive block_rows=8 n=8 tile"), std::string::npos);
  EXPECT_NE(dry.out.find("transpose/naive block_rows=16 n=8 tile"), std::string::npos);
}

TEST(cli_hostile_files, an_unreadable_sub_folder_is_a_usage_error_not_an_internal_one) {
  // Root reads every folder: as root, bankbench runs as nobody (setpriv), where it can.
  std::string as_user;
  if (::geteuid() == 0) {
    as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups";
    if (bb::test::run_cli("--version", as_user).exit_code != 0)
      GTEST_SKIP() << "root reads every folder, and bankbench cannot run as nobody here";
  }
  bb::test::temp_dir tmp;
  fs::permissions(tmp.path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
  fs::create_directories(tmp.path / "closed");
  write(tmp.path / "a.yaml", std::string("name: a\n") + k_transpose);
  ::chmod((tmp.path / "closed").c_str(), 0);
  const auto r = bb::test::run_cli("validate '" + tmp.path.string() + "'", as_user);
  ::chmod((tmp.path / "closed").c_str(), 0755);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot read the folder " + (tmp.path / "closed").string()), std::string::npos) << r.err;
}

TEST(cli_hostile_files, bankmap_parameters_of_the_wrong_kind_are_usage_errors) {
  auto r = bb::test::run_cli("bankmap --variant transpose/padded --params n=abc");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--params n=abc: 'n' takes an integer (its default is"), std::string::npos) << r.err;
  r = bb::test::run_cli("bankmap --variant transpose/padded --params n=1.5");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = bb::test::run_cli("bankmap --variant transpose/padded --params n=-5");
  EXPECT_NE(r.exit_code, 5) << r.err;
}

// A kernel source given where its experiment file belongs: said in words, not a YAML error from
// inside the CUDA file; validate and run alike, exit 2.
TEST(cli_hostile_files, a_source_file_is_not_an_experiment_file) {
  bb::test::temp_dir tmp;
  write(tmp.path / "kernel.cu", "#include <cuda_runtime.h>\n__global__ void k(float* p) { p[0] = 1; }\n");
  write(tmp.path / "tile.hpp", "#pragma once\n");
  const std::string cu = (tmp.path / "kernel.cu").string();
  auto r = bb::test::run_cli("validate '" + cu + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(cu + " is a CUDA source, not an experiment file; give the YAML file that names it (source: "
                            "file: kernel.cu)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("YAML syntax"), std::string::npos) << r.err;
  const auto db = tmp.path / "never.sqlite";
  r = bb::test::run_cli("--db '" + db.string() + "' run --backend model '" + (tmp.path / "tile.hpp").string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("tile.hpp is a C++ header, not an experiment file; give the YAML file that names it (source: "
                       "file: tile.hpp)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(db));
}
