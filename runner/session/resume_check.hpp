#pragma once
/// `run --resume N` completes a run only with what made it: the same backend, the same GPU (or
/// the same model rules), the same experiment text and the same fingerprint.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runner/common/backend.hpp"
#include "runner/config/experiment.hpp"
#include "runner/session/run_session.hpp"
#include "runner/store/database.hpp"

namespace bb::session {

/// Before anything runs: the run exists, is not complete, is not being written by a live process
/// of this host, was made by `backend`, and its stored text still has its stored sha256. Throws
/// usage_error (exit 2) saying what differs.
void check_resume_request(const store::database& db, std::int64_t run_id, backend b);

/// Once the device is open: the run's GPU (uuid and backend) is `gpu`, and its fingerprint is
/// `fingerprint` where both are known. Throws usage_error saying what differs.
void check_resume_identity(const store::database& db, std::int64_t run_id, const store::gpu_record& gpu,
                           const std::string& fingerprint);

/// The experiment file given with --resume has the text the run was made from.
void check_resume_text(const store::database& db, std::int64_t run_id, const std::string& path,
                       const std::string& text);

/// What `run --resume RUN` completes: the run's own experiment, from its stored text, and where
/// to start (the configurations it holds, and those outside its share, are done).
struct resumed_run {
  std::vector<config::experiment> experiments;
  resume_point start;
};

/// Checks that `plan` may complete run `run_id` of `plan.db` (the checks above; `plan.share`, if
/// given, is the run's share) and reopens it. `given_files`, where set, loads the experiment
/// files named with --resume, which must be the run's own one. Throws usage_error saying what
/// differs; nothing is changed then.
resumed_run reopen_run(const run_plan& plan, std::int64_t run_id,
                       const std::function<std::vector<config::experiment>()>& given_files);

} // namespace bb::session
