#include "runner/session/run_shares.hpp"

#include <cstdlib>

namespace bb::session {

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}
} // namespace

std::size_t keep_only_share(const std::vector<config::experiment>& experiments, const std::vector<config::share>& chain,
                            resume_point& start) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < experiments.size(); ++i) {
    const auto configs = config::expand(experiments[i]);
    std::vector<bool> in(configs.size(), false);
    for (const auto k : config::configurations_in_share(experiments[i], configs, chain)) in[k] = true;
    for (std::size_t k = 0; k < configs.size(); ++k) {
      if (!in[k])
        start.done[i].insert(static_cast<int>(k));
      else
        ++kept;
    }
  }
  return kept;
}

bool nothing_to_do(const std::vector<config::experiment>& experiments, std::size_t index, const resume_point& start) {
  return start.run_ids[index] == 0 && !start.done[index].empty() &&
         start.done[index].size() >= config::expand(experiments[index]).size();
}

void record_run_environment(store::run_record& r, const run_plan& plan) {
  r.slurm_job_id = env("SLURM_ARRAY_JOB_ID");
  if (r.slurm_job_id.empty()) r.slurm_job_id = env("SLURM_JOB_ID");
  r.slurm_array_task_id = env("SLURM_ARRAY_TASK_ID");
  r.cuda_visible_devices = plan.visible_devices.value_or("");
  r.shard = config::share_text(plan.share);
}

} // namespace bb::session
