// The columns variant: colsum_kernel over column_per_thread, thread t summing column t (kernel.cuh).
#include "kernels/colsum/family.cuh"

namespace bb::colsum {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "columns", "thread t sums column t: the warp reads a row per step",
                              factory<column_per_thread>(), shared_access_plan<column_per_thread>);
} // namespace bb::colsum
