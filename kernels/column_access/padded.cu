// Padding each row by one word moves element (i, c) to bank (i + c) mod 32: a column spans all 32 banks.
#include "kernels/column_access/family.cuh"

namespace bb::column_access {
using padded_layout = pitched_layout<32, 33>;
BB_REGISTER_VARIANT_WITH_PLAN(family(), "padded", "float tile[32][33]; one word of padding per row",
                              factory<padded_layout>(), shared_access_plan<padded_layout>);
} // namespace bb::column_access
