// Blelloch with conflict-free offsets: element i at word i + i / 32 spreads every level's lanes over 32 banks.
#include "kernels/scan/family.cuh"

namespace bb::scan {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "blelloch_padded",
                              "work-efficient scan, element i at word i + i/32 (temp[1056])",
                              factory<blelloch_variant<padded_layout>>(), blelloch_access_plan<padded_layout>);
} // namespace bb::scan
