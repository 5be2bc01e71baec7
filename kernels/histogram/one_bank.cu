// Bins 32 words apart: all 32 bins in bank 0, so a warp's 32 distinct bins take 32 wavefronts.
#include "kernels/histogram/family.cuh"

namespace bb::histogram {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "one_bank", "bin b at word 32b: every bin in bank 0",
                              (factory<shared_bins<32>, distinct_keys>()),
                              (shared_access_plan<shared_bins<32>, distinct_keys>));
} // namespace bb::histogram
