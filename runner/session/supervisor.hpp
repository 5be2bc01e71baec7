#pragma once
/// Fault isolation for `bankbench run`: configurations run in a worker process, so an illegal
/// address, a trap or a hang costs one configuration, not the run. The supervisor (this process)
/// never initialises CUDA; it watches the worker's progress, stops a configuration that outlives
/// its time limit, records what the worker could not, and starts a fresh worker for the rest.
#include "runner/session/run_session.hpp"

namespace bb::session {

/// Runs `experiments` from `start` under supervision; returns the exit code. `start` ends up
/// naming the session and runs the workers wrote.
int supervise(const std::vector<config::experiment>& experiments, const run_plan& plan, resume_point& start);

} // namespace bb::session
