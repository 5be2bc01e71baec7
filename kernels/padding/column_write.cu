// Columns written, rows read: a column's lanes sit pitch x sizeof(T) bytes apart, so the row length in 4-byte words sets the banks of the measured store.
#include "kernels/padding/family.cuh"

namespace bb::padding {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "column_write",
                              "each warp writes a column (lane = row), then rows are read out: the store is measured",
                              factory<direction::column_write>(), shared_access_plan<direction::column_write>);
} // namespace bb::padding
