// Coalesced sources (4 global lines per cp.async), destinations lane = row over 128-byte rows: a
// quarter-warp's 8 chunks share a bank group, so the bank side alone is 8-way (32 per cp.async).
#include "kernels/cp_async/family.cuh"

namespace bb::cp_async {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "scatter",
                              "float tile[32][32]; chunk q read row-wise, stored at row q mod 32, chunk q / 32",
                              (factory<pitched<128>, order::scatter>()),
                              (shared_access_plan<pitched<128>, order::scatter>));
} // namespace bb::cp_async
