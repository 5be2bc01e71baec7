#pragma once
/// `run --devices all|0,2,3`: one supervised session per GPU, each with its own share of the
/// configurations (config/share.hpp), all writing to the one database. Each run row names its GPU
/// (runs.gpu_id) and its share (runs.shard, e.g. "1/4" or "0/2:variant"), so `--resume RUN`
/// completes one device's run as it completes any other.
#include <vector>

#include "runner/session/run_session.hpp"

namespace bb::session {

/// The ordinals `--devices` names: "all" asks a short-lived child process how many CUDA devices
/// there are (this process never initialises CUDA, as it forks); the model counts as one device.
/// Throws usage_error on bad text.
std::vector<int> devices_named(const std::string& text, backend b);

/// Runs what `start` leaves to do, one session per device in `plan.devices` (two or more), each in
/// its own process with its share of the configurations; prints every run's table at the end.
/// Returns the exit code: 0 when every device's session returned 0; otherwise the most severe.
int run_on_devices(const std::vector<config::experiment>& experiments, const run_plan& plan, resume_point& start);

} // namespace bb::session
