// Thread t sums row t: at step i the warp reads column i, words a pitch apart: one bank at pitch 32 (32-way), all 32 at pitch 33.
#include "kernels/colsum/family.cuh"

namespace bb::colsum {
namespace {
struct row_per_thread {
  BB_HD static constexpr int2 element(int thread, int step) { return {thread, step}; } // (row, col)
};
} // namespace
BB_REGISTER_VARIANT_WITH_PLAN(family(), "rows", "thread t sums row t: the warp reads a column per step",
                              factory<row_per_thread>(), shared_access_plan<row_per_thread>);
} // namespace bb::colsum
