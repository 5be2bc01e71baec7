// Blelloch work-efficient scan, unpadded: at sweep level k lanes sit 2^(k+1) words apart, up to 32-way.
#include "kernels/scan/family.cuh"

namespace bb::scan {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "blelloch", "work-efficient up- and down-sweep, temp[1024] unpadded",
                              factory<blelloch_variant<plain_layout>>(), blelloch_access_plan<plain_layout>);
} // namespace bb::scan
