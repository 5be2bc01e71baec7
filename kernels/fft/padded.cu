// Element i at word i + i / 32: the stage writes (2j, 2j + 1) and the bit-reversed read hit 32 distinct banks.
#include "kernels/fft/family.cuh"

namespace bb::fft {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "padded", "re[528], im[528]: element i at word i + i/32",
                              factory<padded_layout>(), fft_access_plan<padded_layout>);
} // namespace bb::fft
