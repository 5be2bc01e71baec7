#pragma once
#include "runner/profile/session.hpp"

namespace bb::launch {

/// Profiles one empty kernel, so the one-time cost of the first profiled launch (about 0.1 s:
/// CUPTI patches the context) is paid during set-up instead of by the first configuration.
/// `grouped`: the way launch::group profiles with `--cache-control all` (user ranges), which the
/// session keeps from its first profile; otherwise one auto range with kernel replay.
void warm_up_profiler(profile::session& counters, bool grouped);

} // namespace bb::launch
