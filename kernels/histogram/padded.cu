// Bins 33 words apart: bin b in bank b, so a warp's 32 distinct bins take one wavefront.
#include "kernels/histogram/family.cuh"

namespace bb::histogram {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "padded", "bin b at word 33b: bin b in bank b",
                              (factory<shared_bins<33>, distinct_keys>()),
                              (shared_access_plan<shared_bins<33>, distinct_keys>));
} // namespace bb::histogram
