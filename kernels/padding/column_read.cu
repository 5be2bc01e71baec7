// Rows written, columns read: a column's lanes sit pitch x sizeof(T) bytes apart, so the row length in 4-byte words sets the banks of the measured load.
#include "kernels/padding/family.cuh"

namespace bb::padding {
BB_REGISTER_VARIANT_WITH_PLAN(
    family(), "column_read",
    "rows stored from global, then each warp reads a column (lane = row): the load is measured",
    factory<direction::column_read>(), shared_access_plan<direction::column_read>);
} // namespace bb::padding
