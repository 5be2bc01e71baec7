// The rows variant: colsum_kernel over row_per_thread, thread t summing row t (kernel.cuh).
#include "kernels/colsum/family.cuh"

namespace bb::colsum {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "rows", "thread t sums row t: the warp reads a column per step",
                              factory<row_per_thread>(), shared_access_plan<row_per_thread>);
} // namespace bb::colsum
