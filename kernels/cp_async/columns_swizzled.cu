// Lane = row over Swizzle<3,4,3> rows: chunk k of row r at k XOR (r mod 8), conflict-free destinations;
// but each lane reads its own global line, 32 lines per cp.async.
#include "kernels/cp_async/family.cuh"

namespace bb::cp_async {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "columns_swizzled",
                              "float tile[32][32] with Swizzle<3,4,3>; lane l copies a chunk of row l",
                              (factory<swizzle_343, order::columns>()),
                              (shared_access_plan<swizzle_343, order::columns>));
} // namespace bb::cp_async
