#include "session/resume_check.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/host_info.hpp"
#include "common/process.hpp"
#include "common/sha256.hpp"
#include "store/results.hpp"

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
  if (info.status == "completed") refuse(run_id, "the run is already complete; nothing to resume");
  if (info.backend != asked)
    refuse(run_id, fmt::format("the run was made with --backend {} ({}), this command asks for --backend {}: {}",
                               info.backend, info.gpu_name, asked,
                               b == backend::model ? "predictions must never fill a measured run"
                                                  : "measurements must never fill a predicted run"));
  if (info.status == "running" && info.pid > 0 && info.host == host_name() && process_alive(info.pid))
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
                               path, sha256_hex(text), detail->run.experiment_sha256));
}

} // namespace bb::session
