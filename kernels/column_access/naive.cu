// Unpadded tile[32][32]: element (i, c) sits in bank c for every row i, so a column read is 32-way.
#include "kernels/column_access/family.cuh"

namespace bb::column_access {
using naive_layout = pitched_layout<32, 32>;
BB_REGISTER_VARIANT_WITH_PLAN(family(), "naive", "float tile[32][32]; a column's 32 words share one bank (32-way)",
                              factory<naive_layout>(), shared_access_plan<naive_layout>);
} // namespace bb::column_access
