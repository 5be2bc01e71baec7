// Lane = row over rows padded to 144 bytes: row r's chunk lands in bank group (r + k) mod 8, conflict-free
// destinations; but each lane reads its own global line, 32 lines per cp.async.
#include "kernels/cp_async/family.cuh"

namespace bb::cp_async {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "columns_padded", "float tile[32][36]; lane l copies a chunk of row l",
                              (factory<pitched<144>, order::columns>()),
                              (shared_access_plan<pitched<144>, order::columns>));
} // namespace bb::cp_async
