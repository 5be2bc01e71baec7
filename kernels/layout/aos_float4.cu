// Array of 16-byte structs read whole: one 16-byte load per lane, 512 contiguous bytes in the 4 wavefronts they need.
#include "kernels/layout/family.cuh"

namespace bb::layout {
namespace {
struct aos_whole : struct_array {
  static constexpr bool k_vector_load = true;
};
} // namespace
BB_REGISTER_VARIANT_WITH_PLAN(family(), "aos_float4", "struct {x, y, z, pad} s[256]; each struct read as one float4",
                              factory<aos_whole>(), shared_access_plan<aos_whole>);
} // namespace bb::layout
