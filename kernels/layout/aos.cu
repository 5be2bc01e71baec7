// Array of 16-byte structs read a field at a time: lane l reads word 4l + f, so banks f, f+4, ..., f+28 serve 4 words each (4-way).
#include "kernels/layout/family.cuh"

namespace bb::layout {
namespace {
struct aos_fields : struct_array {
  static constexpr bool k_vector_load = false;
};
} // namespace
BB_REGISTER_VARIANT_WITH_PLAN(family(), "aos",
                              "struct {x, y, z, pad} s[256]; x, y, z read one field per request (4-way)",
                              factory<aos_fields>(), shared_access_plan<aos_fields>);
} // namespace bb::layout
