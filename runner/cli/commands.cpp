#include "cli/commands.hpp"

namespace bb::cli {

const std::vector<command>& commands() {
  static const std::vector<command> table = {
      {"run", "run experiments on the GPU: verify, count bank conflicts, time, store", setup_run},
      {"validate", "check experiment files without a GPU", setup_validate},
      {"list", "list families and variants, metric sets, runs or GPUs", setup_list},
      {"show", "print a run's results table", setup_show},
      {"bankmap", "show which bank each lane of one warp request hits (table and SVG), no GPU", setup_bankmap},
  };
  return table;
}

} // namespace bb::cli
