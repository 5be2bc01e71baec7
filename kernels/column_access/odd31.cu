// An odd side with no padding: element (i, c) of tile[31][31] sits in bank (c - i) mod 32, 31 lanes in 31 banks.
#include "kernels/column_access/family.cuh"

namespace bb::column_access {
using odd_layout = pitched_layout<31, 31>;
BB_REGISTER_VARIANT_WITH_PLAN(family(), "odd31", "float tile[31][31]; 31 active lanes, 31 distinct banks",
                              factory<odd_layout>(), shared_access_plan<odd_layout>);
} // namespace bb::column_access
