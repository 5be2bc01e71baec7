#include "cli/model_backend.hpp"

namespace bb::cli {

store::gpu_record model_gpu_record() {
  store::gpu_record g;
  g.uuid = "model";
  g.name = "bank model";
  g.backend = "model";
  return g;
}

launch::config_result predict_configuration(const config::experiment&, const config::configuration&,
                                            const variant_info& variant) {
  launch::config_result r;
  r.status = "unsupported";
  r.reason = variant.id() + " has no access plan for the model";
  return r;
}

} // namespace bb::cli
