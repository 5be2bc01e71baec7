#pragma once
#include "profile/session.hpp"

namespace bb::launch {

/// Profiles one empty kernel, so the one-time cost of the first profiled launch (about 0.1 s:
/// CUPTI patches the context) is paid during set-up instead of by the first configuration.
void warm_up_profiler(profile::session& counters);

} // namespace bb::launch
