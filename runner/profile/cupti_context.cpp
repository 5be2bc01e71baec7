#include "runner/profile/cupti_context.hpp"

#include <cupti_profiler_target.h>

#include "runner/common/error.hpp"
#include "runner/profile/cupti_call.hpp"

namespace bb::profile {

void ensure_initialized() {
  static bool done = false;
  if (done) return;
  CUpti_Profiler_Initialize_Params p{CUpti_Profiler_Initialize_Params_STRUCT_SIZE, nullptr};
  BB_CUPTI_CALL(cuptiProfilerInitialize(&p));
  done = true;
}

} // namespace bb::profile
