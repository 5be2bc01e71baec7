// One private 32-bin copy per warp (bin b in bank b), summed by warp 0 at the end.
#include "kernels/histogram/family.cuh"

namespace bb::histogram {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "per_warp", "bins[warp][32]: one private copy per warp",
                              (factory<per_warp_bins, distinct_keys>()),
                              (shared_access_plan<per_warp_bins, distinct_keys>));
} // namespace bb::histogram
