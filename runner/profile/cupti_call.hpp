#pragma once
/// BB_CUPTI_CALL(expr): turn a CUPTI failure into the error a user can act on.
#include <cupti_result.h>

namespace bb::profile {

/// Throws environment_error for the failures a user fixes (permission, another profiler, busy
/// counters, unsupported device) and api_error for the rest, naming the call and file:line.
[[noreturn]] void throw_cupti_error(CUptiResult result, const char* call, const char* file, int line);

} // namespace bb::profile

#define BB_CUPTI_CALL(expr)                                                          \
  do {                                                                               \
    const CUptiResult bb_cupti_status_ = (expr);                                     \
    if (bb_cupti_status_ != CUPTI_SUCCESS)                                           \
      ::bb::profile::throw_cupti_error(bb_cupti_status_, #expr, __FILE__, __LINE__); \
  } while (false)
