// Lane = row over 128-byte rows: a quarter-warp's 8 destinations share one bank group, 8-way (32 per cp.async).
#include "kernels/cp_async/family.cuh"

namespace bb::cp_async {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "columns", "float tile[32][32]; lane l copies a chunk of row l",
                              (factory<pitched<128>, order::columns>()),
                              (shared_access_plan<pitched<128>, order::columns>));
} // namespace bb::cp_async
