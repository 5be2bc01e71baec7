// `requires: [cutlass]`: CUTLASS found in an include folder or through CUTLASS_DIR as the file
// loads, its include folder added to every variant; not found, the experiment carries the note
// that skips it, naming what was searched and how to point at CUTLASS.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runner/config/experiment.hpp"

namespace bb_test {
bb::registry fake_registry(); // test_config_load.cpp
}

namespace {

namespace fs = std::filesystem;
using bb::config::find_cutlass;

// A folder that looks like a CUTLASS checkout: include/cute/tensor.hpp.
struct fake_cutlass {
  fs::path root = fs::temp_directory_path() /
                  ("bb_fake_cutlass_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  fake_cutlass() {
    fs::remove_all(root);
    fs::create_directories(root / "include" / "cute");
    std::ofstream(root / "include" / "cute" / "tensor.hpp") << "#pragma once\n";
  }
  ~fake_cutlass() { fs::remove_all(root); }
};

// CUTLASS_DIR set for one test and restored after.
struct cutlass_dir_env {
  std::string saved;
  bool had = false;
  explicit cutlass_dir_env(const char* value) {
    if (const char* v = std::getenv("CUTLASS_DIR")) had = true, saved = v;
    if (value != nullptr)
      setenv("CUTLASS_DIR", value, 1);
    else
      unsetenv("CUTLASS_DIR");
  }
  ~cutlass_dir_env() {
    if (had)
      setenv("CUTLASS_DIR", saved.c_str(), 1);
    else
      unsetenv("CUTLASS_DIR");
  }
};

const std::string k_how = "; point CUTLASS_DIR at a CUTLASS checkout or release (its include/ folder is searched: "
                          "CUTLASS_DIR=$HOME/cutlass), or list CUTLASS's include folder under source: include:";

TEST(config_requires, cutlass_is_found_in_include_folders_then_cutlass_dir) {
  fake_cutlass fake;
  const std::string include = (fake.root / "include").string();
  // Every variant lists it: nothing to add, whatever CUTLASS_DIR says.
  auto r = find_cutlass({{"/elsewhere", include}, {include}}, "/nowhere");
  EXPECT_EQ(r.include_dir, "");
  EXPECT_EQ(r.missing, "");
  // One variant does not: CUTLASS_DIR's include folder is added, or CUTLASS_DIR itself.
  r = find_cutlass({{include}, {}}, fake.root.c_str());
  EXPECT_EQ(r.include_dir, include);
  EXPECT_EQ(r.missing, "");
  r = find_cutlass({{}}, include.c_str());
  EXPECT_EQ(r.include_dir, include);
  r = find_cutlass({{}}, (fake.root.string() + "/").c_str());
  EXPECT_EQ(r.include_dir, include);
}

TEST(config_requires, cutlass_not_found_says_what_was_searched_and_how_to_point_at_it) {
  auto r = find_cutlass({{"/usr/include"}}, nullptr);
  EXPECT_EQ(r.include_dir, "");
  EXPECT_EQ(r.missing,
            "CUTLASS not found: CUTLASS_DIR is not set and no include: folder holds cute/tensor.hpp" + k_how);
  EXPECT_EQ(find_cutlass({{}}, "").missing, r.missing);
  r = find_cutlass({{}}, "/nowhere/cutlass");
  EXPECT_EQ(r.missing, "CUTLASS not found: CUTLASS_DIR is '/nowhere/cutlass', which holds neither "
                       "include/cute/tensor.hpp nor cute/tensor.hpp" +
                           k_how);
}

TEST(config_requires, the_cute_experiment_gets_cutlass_or_its_note) {
  const std::string path = std::string(BB_SOURCE_DIR) + "/experiments/cute/ldmatrix.yaml";
  fake_cutlass fake;
  {
    cutlass_dir_env env(fake.root.c_str());
    const auto e = bb::config::load_experiment_file(path, bb_test::fake_registry());
    EXPECT_EQ(e.requires_libraries, std::vector<std::string>{"cutlass"});
    EXPECT_EQ(e.skip_reason, "");
    ASSERT_EQ(e.sources.size(), 5u);
    for (const auto& v : e.sources)
      EXPECT_EQ(v.include_dirs, std::vector<std::string>{(fake.root / "include").string()});
  }
  {
    cutlass_dir_env env(nullptr);
    const auto e = bb::config::load_experiment_file(path, bb_test::fake_registry());
    EXPECT_EQ(e.skip_reason,
              "CUTLASS not found: CUTLASS_DIR is not set and no include: folder holds cute/tensor.hpp" + k_how);
    EXPECT_TRUE(e.find_source("swizzled")->include_dirs.empty());
  }
}

TEST(config_requires, an_include_folder_holding_cute_is_enough) {
  fake_cutlass fake;
  cutlass_dir_env env(nullptr);
  const fs::path yaml = fake.root / "mine.yaml";
  std::ofstream(fake.root / "k.cu") << "__global__ void k() {}\n";
  std::ofstream(yaml) << "name: mine\ndescription: CuTe through include\nsource:\n  file: k.cu\n  kernel: k\n"
                         "  include: [include]\n  requires: [cutlass]\n  grid: 1\n  block: 32\nvariants: [only]\n";
  const auto e = bb::config::load_experiment_file(yaml.string(), bb_test::fake_registry());
  EXPECT_EQ(e.skip_reason, "");
  EXPECT_EQ(e.sources.at(0).include_dirs, std::vector<std::string>{(fake.root / "include").string()});
  // Without `requires`, nothing is searched and nothing is skipped.
  std::ofstream(yaml) << "name: mine\ndescription: plain\nsource: {file: k.cu, kernel: k, grid: 1, block: 32}\n"
                         "variants: [only]\n";
  const auto plain = bb::config::load_experiment_file(yaml.string(), bb_test::fake_registry());
  EXPECT_TRUE(plain.requires_libraries.empty());
  EXPECT_EQ(plain.skip_reason, "");
}

} // namespace
