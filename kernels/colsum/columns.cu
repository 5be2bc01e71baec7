// Thread t sums column t: at step i the warp reads row i, 32 consecutive words in 32 banks, whatever the pitch.
#include "kernels/colsum/family.cuh"

namespace bb::colsum {
namespace {
struct column_per_thread {
  BB_HD static constexpr int2 element(int thread, int step) { return {step, thread}; } // (row, col)
};
} // namespace
BB_REGISTER_VARIANT_WITH_PLAN(family(), "columns", "thread t sums column t: the warp reads a row per step",
                              factory<column_per_thread>(), shared_access_plan<column_per_thread>);
} // namespace bb::colsum
