// A worker narrows CUDA_VISIBLE_DEVICES to its one GPU before CUDA starts (launch::make_only_visible):
// the entry it keeps, and where it leaves the list alone.
#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "runner/launch/device.hpp"
#include "runner/launch/nvml.hpp"
#include "runner/session/plan.hpp"

namespace {

/// Sets CUDA_VISIBLE_DEVICES (or unsets it) for one test and puts the old value back.
class visible_devices : public ::testing::Test {
protected:
  void SetUp() override {
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) m_saved = v;
  }
  void TearDown() override {
    if (m_saved)
      setenv("CUDA_VISIBLE_DEVICES", m_saved->c_str(), 1);
    else
      unsetenv("CUDA_VISIBLE_DEVICES");
  }
  static std::string now() {
    const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
    return v == nullptr ? "(unset)" : v;
  }
  std::optional<std::string> m_saved;
};

TEST_F(visible_devices, the_ordinal_picks_its_entry_of_the_users_list) {
  const std::optional<std::string> list = "3,GPU-8f2a,MIG-77c1";
  EXPECT_EQ(bb::launch::make_only_visible(1, list), "GPU-8f2a");
  EXPECT_EQ(now(), "GPU-8f2a");
  EXPECT_EQ(bb::launch::make_only_visible(0, list), "3"); // the run's own list, not the narrowed variable
  EXPECT_EQ(now(), "3");
}

TEST_F(visible_devices, an_ordinal_past_the_list_or_an_empty_entry_changes_nothing) {
  setenv("CUDA_VISIBLE_DEVICES", "3,5", 1);
  EXPECT_EQ(bb::launch::make_only_visible(2, "3,5"), std::nullopt);
  EXPECT_EQ(now(), "3,5");
  setenv("CUDA_VISIBLE_DEVICES", "3,,5", 1);
  EXPECT_EQ(bb::launch::make_only_visible(1, "3,,5"), std::nullopt);
  EXPECT_EQ(now(), "3,,5");
  EXPECT_EQ(bb::launch::make_only_visible(-1, "3,,5"), std::nullopt);
  EXPECT_EQ(now(), "3,,5");
}

TEST_F(visible_devices, without_a_list_nvml_must_know_the_gpu) {
  unsetenv("CUDA_VISIBLE_DEVICES");
  const auto& n = bb::launch::nvml::instance();
  const auto told = bb::launch::make_only_visible(0, std::nullopt);
  if (n.device_count() < 1 || n.any_mig()) { // this machine: no NVML, no GPU, or MIG
    EXPECT_EQ(told, std::nullopt);
    EXPECT_EQ(now(), "(unset)");
  } else {
    EXPECT_EQ(told, "0");
    EXPECT_EQ(now(), "0");
  }
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(bb::launch::make_only_visible(n.device_count() < 0 ? 0 : n.device_count(), std::nullopt),
            std::nullopt); // past the GPUs
  EXPECT_EQ(now(), "(unset)");
}

TEST(session_plan, a_narrowed_device_is_cuda_device_0_and_keeps_its_ordinal) {
  bb::session::run_plan p;
  p.device = 3;
  EXPECT_EQ(p.cuda_ordinal(), 3);
  p.device_alone = true;
  EXPECT_EQ(p.cuda_ordinal(), 0);
  EXPECT_EQ(p.device, 3);
}

} // namespace
