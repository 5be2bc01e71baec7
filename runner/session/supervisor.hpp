#pragma once
/// The one process tree of `bankbench run`. This process owns what the run shares: the stop
/// signals, the session row, the time limits and the results it hands back. Where configurations
/// run in workers (on a GPU unless --no-isolation, and always over several devices), it forks one
/// worker per device, watches them all in one poll loop, stops a configuration that outlives its
/// time limit, records what a worker could not, and starts a fresh worker for the rest of that
/// device's share, so an illegal address, a trap or a hang costs one configuration. A worker narrows
/// CUDA to its one GPU, runs configurations and prints nothing. This process never initialises CUDA,
/// nor compiles a source variant (NVRTC initialises the driver): a child does that first.
#include <functional>
#include <string>
#include <vector>

#include "runner/session/run_session.hpp"

namespace bb::session {

/// Called once the configurations have run, with the runs to show, in device order: this is where
/// the command line prints its tables, while finished workers release their GPUs.
using run_report = std::function<void(const std::vector<std::int64_t>& run_ids)>;

/// Runs what `start` leaves to do as `plan` says, in this process or in workers, and returns the
/// exit code; `start.session_id` names the session. The one place the stop signals are set up.
int execute(const std::vector<config::experiment>& experiments, const run_plan& plan, resume_point& start,
            const run_report& report);

/// The ordinals `--devices` names ("all", or "0,2,3"): "all" asks a short-lived child process how
/// many CUDA devices there are (this process never initialises CUDA); the model counts as one
/// device. Throws usage_error on bad text, environment_error where no device can be counted.
std::vector<int> devices_named(const std::string& text, backend b);

/// The architecture ("sm_90") of each device ordinal, asked of CUDA in a short-lived child process
/// (this process never initialises CUDA); "" for a device that cannot be asked (no driver, no such
/// device).
std::vector<std::string> probe_archs(const std::vector<int>& devices);

} // namespace bb::session
