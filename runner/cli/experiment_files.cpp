#include "cli/experiment_files.hpp"

#include <algorithm>
#include <filesystem>

#include "common/error.hpp"
#include "registry/registry.hpp"

namespace bb::cli {

namespace fs = std::filesystem;

std::vector<std::string> experiment_files(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<std::string> found;
      for (const auto& e : fs::recursive_directory_iterator(in, ec))
        if (e.is_regular_file() && (e.path().extension() == ".yaml" || e.path().extension() == ".yml"))
          found.push_back(e.path().string());
      std::sort(found.begin(), found.end());
      if (found.empty()) throw usage_error("no experiment files (*.yaml) under " + in);
      out.insert(out.end(), found.begin(), found.end());
    } else if (fs::exists(in, ec)) {
      out.push_back(in);
    } else {
      // The default, experiments/, is relative to the working directory: say where that is.
      throw usage_error("no such experiment file or folder: " + in +
                        (fs::path(in).is_relative() ? " (relative to " + fs::current_path(ec).string() +
                                                          "; run bankbench from the checkout, or name the files)"
                                                    : ""));
    }
  }
  return out;
}

std::vector<config::experiment> load_all(const std::vector<std::string>& files) {
  std::vector<config::experiment> out;
  std::vector<diagnostic> all;
  for (const auto& f : files) {
    try {
      out.push_back(config::load_experiment_file(f, registry::instance()));
    } catch (const config_error& e) {
      all.insert(all.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!all.empty()) throw config_error(std::move(all));
  return out;
}

} // namespace bb::cli
