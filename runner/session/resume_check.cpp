#include "runner/session/resume_check.hpp"

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/common/host_info.hpp"
#include "runner/common/path_text.hpp"
#include "runner/common/process.hpp"
#include "runner/common/sha256.hpp"
#include "runner/config/share.hpp"
#include "runner/registry/registry.hpp"
#include "runner/session/run_shares.hpp"
#include "runner/store/results.hpp"
#include "runner/store/resume.hpp"

namespace bb::session {

namespace {

store::run_info info_of(const store::database& db, std::int64_t run_id) {
  for (auto& r : store::run_infos(db))
    if (r.id == run_id) return r;
  throw usage_error(fmt::format("--resume {}: no such run in {} (see `bankbench list runs`)", run_id, db.path()));
}

[[noreturn]] void refuse(std::int64_t run_id, const std::string& what) {
  throw usage_error(fmt::format("--resume {}: {}; the run is left as it is", run_id, what));
}

} // namespace

void check_resume_request(const store::database& db, std::int64_t run_id, backend b) {
  const auto info = info_of(db, run_id);
  const std::string asked = name_of(b);
  if (info.status == run_status::completed) refuse(run_id, "the run is already complete; nothing to resume");
  if (info.backend != asked)
    refuse(run_id, fmt::format("the run was made with --backend {} ({}), this command asks for --backend {}: {}",
                               info.backend, info.gpu_name, asked,
                               b == backend::model ? "predictions must never fill a measured run"
                                                   : "measurements must never fill a predicted run"));
  if (info.status == run_status::running && info.pid > 0 && info.host == host_name() && process_alive(info.pid))
    refuse(run_id, fmt::format("the run is still being written by process {} on this host; wait for it or stop "
                               "it (kill -TERM {}) first",
                               info.pid, info.pid));
  const auto detail = db.run(run_id);
  if (detail && !detail->run.experiment_sha256.empty() &&
      sha256_hex(detail->run.experiment_text) != detail->run.experiment_sha256)
    refuse(run_id, fmt::format("the experiment text stored with the run does not match its sha256 {} (the "
                               "database was edited); start a new run instead",
                               detail->run.experiment_sha256));
}

void check_resume_identity(const store::database& db, std::int64_t run_id, const store::gpu_record& gpu,
                           const std::string& fingerprint) {
  const auto info = info_of(db, run_id);
  if (info.backend != gpu.backend)
    refuse(run_id, fmt::format("the run was made with --backend {}, this one is {}", info.backend, gpu.backend));
  if (info.gpu_uuid != gpu.uuid)
    refuse(run_id, fmt::format("the run was made on {} ({}), this is {} ({}); resume it there, with --device or "
                               "CUDA_VISIBLE_DEVICES naming that GPU",
                               info.gpu_name, info.gpu_uuid, gpu.name, gpu.uuid));
  if (!info.fingerprint.empty() && !fingerprint.empty() && info.fingerprint != fingerprint)
    refuse(run_id, fmt::format("the run's fingerprint {} differs from this bankbench's {} (other kernels, sources "
                               "or run options); start a new run instead",
                               info.fingerprint, fingerprint));
}

void check_resume_text(const store::database& db, std::int64_t run_id, const std::string& path,
                       const std::string& text) {
  const auto detail = db.run(run_id);
  if (detail && sha256_hex(text) != detail->run.experiment_sha256)
    refuse(run_id, fmt::format("{} is not the experiment the run was made from (its sha256 {} differs from the "
                               "run's {}); resume without a file, or start a new run",
                               shown_path(path), sha256_hex(text), detail->run.experiment_sha256));
}

resumed_run reopen_run(const run_plan& plan, std::int64_t run_id,
                       const std::function<std::vector<config::experiment>()>& given_files) {
  auto db = store::database::open_existing(plan.db);
  const auto detail = db.run(run_id);
  if (!detail)
    throw usage_error("--resume " + std::to_string(run_id) + ": no such run in " + plan.db +
                      " (see `bankbench list runs`)");
  if (detail->status == run_status::completed)
    throw usage_error("run " + std::to_string(run_id) + " is already complete; nothing to resume");
  check_resume_request(db, run_id, plan.backend);
  if (given_files) { // files named with --resume must be the run's own experiment
    const auto given = given_files();
    if (given.size() != 1)
      throw usage_error(fmt::format("--resume {} completes one run; name at most its one experiment file", run_id));
    check_resume_text(db, run_id, given[0].path, given[0].text);
  }
  resumed_run out;
  out.experiments.push_back(
      config::load_experiment_text(detail->run.experiment_text, detail->run.experiment_path, registry::instance()));
  out.start = resume_point(1);
  out.start.run_ids[0] = run_id;
  for (const int seq : store::stored_sequences(db, run_id)) out.start.done[0].insert(seq);
  std::string shard; // a run of one share completes that share only
  for (const auto& info : store::run_infos(db))
    if (info.id == run_id) {
      shard = info.shard;
      out.start.session_id = info.session_id; // 0 for a run from before sessions: a new one
    }
  if (!plan.share.empty() && config::share_text(plan.share) != shard)
    throw usage_error("--resume " + std::to_string(run_id) + " is a run of share " + (shard.empty() ? "all" : shard) +
                      ", not " + config::share_text(plan.share) + "; leave --shard out when resuming");
  if (!shard.empty()) keep_only_share(out.experiments, config::parse_shares(shard, "runs.shard"), out.start);
  store::reopen_run(db, run_id);
  return out;
}

} // namespace bb::session
