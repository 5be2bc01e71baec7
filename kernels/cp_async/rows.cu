// Each quarter-warp copies one row's 8 chunks: the destinations fill 8 bank groups, 4 wavefronts per cp.async.
#include "kernels/cp_async/family.cuh"

namespace bb::cp_async {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "rows", "float tile[32][32]; a quarter-warp copies one row",
                              (factory<pitched<128>, order::rows>()), (shared_access_plan<pitched<128>, order::rows>));
} // namespace bb::cp_async
