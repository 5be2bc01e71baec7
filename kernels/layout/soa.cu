// Structure of arrays: field f of consecutive particles in consecutive words, so each field read is conflict-free.
#include "kernels/layout/family.cuh"

namespace bb::layout {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "soa", "float x[256], y[256], z[256]; each field read conflict-free",
                              factory<array_struct>(), shared_access_plan<array_struct>);
} // namespace bb::layout
