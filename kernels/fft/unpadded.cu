// Element i at word i: stage writes to 2j, 2j + 1 are 2-way; the bit-reversed final read is 16-way.
#include "kernels/fft/family.cuh"

namespace bb::fft {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "unpadded", "re[512], im[512]: stage writes 2-way, bit-reversed read 16-way",
                              factory<unpadded_layout>(), fft_access_plan<unpadded_layout>);
} // namespace bb::fft
