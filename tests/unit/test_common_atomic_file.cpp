// write_file_atomically: the whole file or the previous one, never a part; errors name the file
// and the cause.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "runner/common/atomic_file.hpp"
#include "runner/common/error.hpp"

namespace fs = std::filesystem;

namespace {

struct atomic_file : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / ("bb-atomic-" + std::to_string(::getpid()) + "-" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override {
    ::unsetenv("BB_TEST_WRITE_LIMIT");
    fs::remove_all(dir);
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  [[nodiscard]] std::size_t entries() const {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
  }
};

std::string big_text(std::size_t bytes) {
  std::string s;
  for (std::size_t i = 0; s.size() < bytes; ++i) s += "row " + std::to_string(i) + "\n";
  return s;
}

} // namespace

TEST_F(atomic_file, writes_the_whole_file_and_creates_missing_folders) {
  const auto file = dir / "a" / "b" / "out.csv";
  const std::string text = big_text(300000); // several buffer fills
  bb::write_file_atomically(file, text);
  EXPECT_EQ(read(file), text);
  EXPECT_EQ(std::distance(fs::directory_iterator(file.parent_path()), fs::directory_iterator{}), 1);
}

TEST_F(atomic_file, a_full_disk_leaves_the_previous_file_and_no_temporary) {
  const auto file = dir / "report.html";
  bb::write_file_atomically(file, "the good report\n");
  ::setenv("BB_TEST_WRITE_LIMIT", "1000", 1);
  try {
    bb::write_file_atomically(file, big_text(5000));
    FAIL() << "no error on a full disk";
  } catch (const bb::output_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(file.string()), std::string::npos) << what;
    EXPECT_NE(what.find("No space left on device"), std::string::npos) << what;
    EXPECT_EQ(e.code(), bb::exit_code::output);
  }
  EXPECT_EQ(read(file), "the good report\n");
  EXPECT_EQ(entries(), 1u) << "the temporary file was left behind";
}

TEST_F(atomic_file, an_error_while_producing_the_text_keeps_the_previous_file) {
  const auto file = dir / "x.json";
  bb::write_file_atomically(file, "{}\n");
  EXPECT_THROW(bb::write_file_atomically(file,
                                         [](std::ostream& out) {
                                           out << "partial";
                                           throw std::runtime_error("the query failed");
                                         }),
               std::runtime_error);
  EXPECT_EQ(read(file), "{}\n");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(atomic_file, a_folder_in_the_way_is_an_error_naming_it) {
  const auto file = dir / "taken";
  fs::create_directories(file / "inside");
  try {
    bb::write_file_atomically(file, "text");
    FAIL() << "a folder was replaced";
  } catch (const bb::output_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(file / "inside"));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(atomic_file, keeps_the_permissions_of_the_file_it_replaces) {
  const auto file = dir / "baseline.json";
  bb::write_file_atomically(file, "1");
  ::chmod(file.c_str(), 0640);
  bb::write_file_atomically(file, "2");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(read(file), "2");
}

TEST_F(atomic_file, a_script_is_executable_by_whoever_may_read_it) {
  const auto file = dir / "task.sh";
  const mode_t mask = ::umask(022);
  bb::write_file_atomically(file, "#!/bin/sh\n", bb::file_kind::script);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ::chmod(file.c_str(), 0640);
  bb::write_file_atomically(file, "#!/bin/sh\nexit 0\n", bb::file_kind::script);
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0750u);
  ::umask(mask);
}

namespace {

// The compile cache is written from several threads at once: the umask must survive, and every new
// file and folder get the usual modes.
TEST_F(atomic_file, threads_writing_new_files_at_once_keep_the_umask_and_the_modes) {
  const mode_t before = ::umask(027);
  constexpr int k_threads = 8, k_files = 40;
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t)
    threads.emplace_back([&, t] {
      for (int f = 0; f < k_files; ++f)
        bb::write_file_atomically(
            dir / ("folder" + std::to_string(f % 4)) / (std::to_string(t) + "-" + std::to_string(f)), "x");
    });
  for (auto& t : threads) t.join();
  const mode_t after = ::umask(before);
  EXPECT_EQ(after, 027u);
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    struct stat st {};
    ASSERT_EQ(::stat(e.path().c_str(), &st), 0);
    if (S_ISDIR(st.st_mode)) {
      EXPECT_EQ(st.st_mode & 07777, 0750u) << e.path();
    } else {
      ++files;
      EXPECT_EQ(st.st_mode & 07777, 0640u) << e.path();
    }
  }
  EXPECT_EQ(files, static_cast<std::size_t>(k_threads * k_files));
}

} // namespace
