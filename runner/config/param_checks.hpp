#pragma once
/// The kernels' own parameter checks, run on every configuration of a loaded experiment.
#include "runner/config/experiment.hpp"

namespace bb::config {

/// Runs each configuration's variant check (registry/param_check.hpp) on the host. Throws
/// config_error pointing at the axis value (file:line:column and key) the kernels would refuse
/// on the GPU; returns the number of configurations checked.
std::size_t check_parameters(const experiment& exp, const registry& reg);

} // namespace bb::config
