#pragma once
/// `run --shard I/N`, and the environment a run records (Slurm job and task, CUDA_VISIBLE_DEVICES,
/// its share): the host side of running a suite on many GPUs or many machines.
#include <string>
#include <vector>

#include "runner/session/run_session.hpp"
#include "runner/config/share.hpp"
#include "runner/store/records.hpp"

namespace bb::session {

/// Marks every configuration outside `chain` as done in `start`, so a session runs only its share.
/// Returns how many configurations the share holds.
std::size_t keep_only_share(const std::vector<config::experiment>& experiments, const std::vector<config::share>& chain,
                            resume_point& start);

/// True when experiment `index` has no run yet and `start` leaves none of its configurations to
/// do (a share that holds none of them): no run is begun for it.
bool nothing_to_do(const std::vector<config::experiment>& experiments, std::size_t index, const resume_point& start);

/// Fills the run's Slurm job id (SLURM_ARRAY_JOB_ID, else SLURM_JOB_ID), array task id, and from
/// the plan its CUDA_VISIBLE_DEVICES (a worker's own entry) and share.
void record_run_environment(store::run_record& r, const run_plan& plan);

} // namespace bb::session
