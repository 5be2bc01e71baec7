// Each lane reads its own element, stride elements after its neighbour's: for 4-byte words the degree is gcd(stride, 32).
#include "kernels/stride/family.cuh"

namespace bb::stride {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "strided", "lane l loads s[l * stride]", factory<1>(), shared_access_plan<1>);
} // namespace bb::stride
