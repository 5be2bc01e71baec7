// Every lane of a warp adds to one bin: one address, not only one bank (padded bins).
#include "kernels/histogram/family.cuh"

namespace bb::histogram {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "same_address", "bin b at word 33b; all 32 lanes of a request on one bin",
                              (factory<shared_bins<33>, same_keys>()),
                              (shared_access_plan<shared_bins<33>, same_keys>));
} // namespace bb::histogram
