#include "common/metrics.hpp"

#include <algorithm>

namespace bb::metrics {

const std::vector<metric_set>& named_sets() {
  static const std::vector<metric_set> sets = {
      {"bank_conflicts",
       "shared-memory requests, wavefronts and bank conflicts for loads and stores, and kernel "
       "duration",
       {k_ld_conflicts, k_st_conflicts, k_ld_wavefronts, k_st_wavefronts, k_ld_requests,
        k_st_requests, k_gpu_time}},
      {"duration", "duration of the profiled range around each launch only", {k_gpu_time}},
  };
  return sets;
}

const metric_set* find_set(const std::string& name) {
  for (const auto& s : named_sets())
    if (s.name == name) return &s;
  return nullptr;
}

const std::vector<derived_metric>& derived_metrics() {
  static const std::vector<derived_metric> list = {
      {"load_requests", "requests", "shared load instructions executed (warp-wide requests)"},
      {"store_requests", "requests", "shared store instructions executed"},
      {"load_wavefronts", "wavefronts", "wavefronts the shared-memory data stage processed for loads"},
      {"store_wavefronts", "wavefronts", "wavefronts for stores"},
      {"load_conflicts", "conflicts", "load bank conflicts counted by the hardware"},
      {"store_conflicts", "conflicts", "store bank conflicts counted by the hardware"},
      {"load_wavefronts_per_request", "ratio", "load wavefronts / load requests"},
      {"store_wavefronts_per_request", "ratio", "store wavefronts / store requests"},
      {"load_conflicts_per_request", "ratio", "load conflicts / load requests"},
      {"store_conflicts_per_request", "ratio", "store conflicts / store requests"},
      {"load_excess_wavefronts", "wavefronts", "load wavefronts above the ideal for the access width"},
      {"store_excess_wavefronts", "wavefronts", "store wavefronts above the ideal for the access width"},
      {"load_excess_wavefronts_per_request", "ratio", "load excess wavefronts / load requests"},
      {"store_excess_wavefronts_per_request", "ratio", "store excess wavefronts / store requests"},
      {"profiled_time_ns", "ns", "duration of the profiled range around the launch (gpu__time_duration.sum); longer than the kernel, whose time the timing pass gives"},
      // The bank model's prediction from the variant's access plan (docs/bank-model.md), stored
      // beside measured values for every variant that has a plan.
      {"predicted_load_requests", "requests", "shared load requests the bank model predicts"},
      {"predicted_store_requests", "requests", "shared store requests the bank model predicts"},
      {"predicted_load_wavefronts", "wavefronts", "load wavefronts the bank model predicts"},
      {"predicted_store_wavefronts", "wavefronts", "store wavefronts the bank model predicts"},
      {"predicted_load_wavefronts_per_request", "ratio", "predicted load wavefronts / predicted load requests"},
      {"predicted_store_wavefronts_per_request", "ratio", "predicted store wavefronts / predicted store requests"},
      {"predicted_load_conflicts_per_request", "ratio", "predicted load conflicts (wavefronts above the ideal) / requests"},
      {"predicted_store_conflicts_per_request", "ratio", "predicted store conflicts (wavefronts above the ideal) / requests"},
  };
  return list;
}

bool is_derived(const std::string& name) {
  const auto& list = derived_metrics();
  return std::any_of(list.begin(), list.end(), [&](const auto& d) { return d.name == name; });
}

double ideal_wavefronts_per_request(int access_bytes) {
  // The documented organisation: 128 bytes per wavefront. On an H200 contiguous 8- and 16-byte
  // loads in experiments/stride took fewer (1 and 2) while the padding family's row loads of
  // double and float4 took 2 and 4 (docs/bank-model.md): until that is settled the excess stays
  // measured against 128 bytes, which it never undercounts.
  const int bytes = std::max(access_bytes, 1) * 32;
  return static_cast<double>((bytes + 127) / 128);
}

std::map<std::string, double> derive(const std::map<std::string, double>& raw, int smem_access_bytes) {
  std::map<std::string, double> out;
  auto get = [&](const char* name, double& v) {
    auto it = raw.find(name);
    if (it == raw.end()) return false;
    v = it->second;
    return true;
  };
  struct side {
    const char* prefix;
    const char* requests;
    const char* wavefronts;
    const char* conflicts;
  };
  for (const side& s : {side{"load", k_ld_requests, k_ld_wavefronts, k_ld_conflicts},
                        side{"store", k_st_requests, k_st_wavefronts, k_st_conflicts}}) {
    const std::string p = s.prefix;
    double req = 0, wav = 0, con = 0;
    const bool has_req = get(s.requests, req);
    const bool has_wav = get(s.wavefronts, wav);
    const bool has_con = get(s.conflicts, con);
    if (has_req) out[p + "_requests"] = req;
    if (has_wav) out[p + "_wavefronts"] = wav;
    if (has_con) out[p + "_conflicts"] = con;
    if (has_req && has_wav) {
      const double ideal = ideal_wavefronts_per_request(smem_access_bytes);
      const double excess = std::max(0.0, wav - req * ideal);
      out[p + "_excess_wavefronts"] = excess;
      if (req > 0) {
        out[p + "_wavefronts_per_request"] = wav / req;
        out[p + "_excess_wavefronts_per_request"] = excess / req;
      }
    }
    if (has_req && has_con && req > 0) out[p + "_conflicts_per_request"] = con / req;
  }
  double t = 0;
  if (get(k_gpu_time, t)) out["profiled_time_ns"] = t;
  return out;
}

} // namespace bb::metrics
