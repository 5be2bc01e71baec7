// Functions of per-line data matched across builds: nvcc names an anonymous namespace after the
// file it compiled, so the same kernel built into bankbench and compiled from its code twin differ.
#include <gtest/gtest.h>

#include "runner/query/line_diff.hpp"

namespace {

using bb::query::without_file_ids;

// As nvcc named transpose's naive kernel (tile 32, 8 rows, float) built into bankbench from
// kernels/transpose/naive.cu, and compiled from bench/code_twins/transpose.yaml.
const std::string k_built_in = "_ZN2bb9transpose16transpose_kernelINS0_46_GLOBAL__N__cb580df3_8_naive_cu_f9ae69be_"
                               "3145312naive_layoutILi32EEEfLi32ELi8EEEvPKT0_PS5_i";
const std::string k_twin = "_ZN2bb9transpose16transpose_kernelINS0_52_GLOBAL__N__21681f23_19_bankbench_kernel_cu_"
                           "ff4b324a12naive_layoutILi32EEEfLi32ELi8EEEvPKT0_PS5_i";

TEST(query_line_names, an_anonymous_namespace_is_spelled_as_gxx_spells_it) {
  const std::string gxx =
      "_ZN2bb9transpose16transpose_kernelINS0_12_GLOBAL__N_112naive_layoutILi32EEEfLi32ELi8EEEvPKT0_PS5_i";
  EXPECT_EQ(without_file_ids(k_built_in), gxx);
  EXPECT_EQ(without_file_ids(k_twin), gxx);
  EXPECT_EQ(without_file_ids(gxx), gxx);
}

TEST(query_line_names, other_names_are_left_as_they_are) {
  EXPECT_EQ(without_file_ids("_Z7two_wayPfi"), "_Z7two_wayPfi");
  // Tile 16 is another kernel, whichever file it came from.
  const std::string tile16 = "_ZN2bb9transpose16transpose_kernelINS0_46_GLOBAL__N__cb580df3_8_naive_cu_f9ae69be_"
                             "3145312naive_layoutILi16EEEfLi16ELi8EEEvPKT0_PS5_i";
  EXPECT_NE(without_file_ids(tile16), without_file_ids(k_twin));
  // A length running past the end of the name is not one.
  EXPECT_EQ(without_file_ids("_ZN99_GLOBAL__N__abc"), "_ZN99_GLOBAL__N__abc");
}

} // namespace
