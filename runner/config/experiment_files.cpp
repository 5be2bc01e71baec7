#include "runner/config/experiment_files.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/registry/registry.hpp"

namespace bb::config {

namespace fs = std::filesystem;

namespace {

// The line of the top-level `name:` key, for the message; 0 when not found.
int line_of_name(const std::string& text) {
  int line = 1;
  for (std::size_t at = 0; at < text.size(); ++line) {
    if (text.compare(at, 5, "name:") == 0) return line;
    const auto nl = text.find('\n', at);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return 0;
}

// What a source file given where an experiment file belongs is, by its extension; empty for
// anything else. Such a file would otherwise be parsed as YAML and fail on its first C++ line.
std::string source_kind(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".cu") return "a CUDA source";
  if (ext == ".cuh") return "a CUDA header";
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx") return "a C++ source";
  if (ext == ".h" || ext == ".hpp") return "a C++ header";
  return "";
}

} // namespace

std::vector<std::string> experiment_files(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  // A file named twice (a folder and a file in it, `a.yaml ./a.yaml`) is loaded once: twice, it
  // would be refused as two experiments of one name.
  std::set<fs::path> seen;
  const auto add = [&](const std::string& file) {
    std::error_code ec;
    const fs::path key = fs::weakly_canonical(file, ec);
    if (seen.insert(ec ? fs::path(file) : key).second) out.push_back(file);
  };
  for (const auto& in : inputs) {
    if (in.empty())
      throw usage_error("an experiment file or folder is named by an empty argument (''); give a YAML file or a "
                        "folder of them, e.g. experiments/transpose");
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<std::string> found;
      // An unreadable sub-folder is the user's to fix, named, not an internal error.
      // A failed step leaves the iterator at its end: the folder is the last one it was to enter.
      std::string entering = in;
      fs::recursive_directory_iterator it(in, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        std::error_code kind;
        if (it->is_directory(kind)) entering = it->path().string();
        if (it->is_regular_file(kind) && (it->path().extension() == ".yaml" || it->path().extension() == ".yml"))
          found.push_back(it->path().string());
      }
      if (ec)
        throw usage_error("cannot read the folder " + shown_path(entering) + ": " + ec.message() +
                          " (fix its permissions, or name the experiment files one by one)");
      std::sort(found.begin(), found.end());
      if (found.empty()) throw usage_error("no experiment files (*.yaml) under " + shown_path(in));
      for (const auto& f : found) add(f);
    } else if (fs::exists(in, ec)) {
      const std::string kind = source_kind(in);
      if (!kind.empty())
        throw usage_error(fmt::format("{} is {}, not an experiment file; give the YAML file that names it (source: "
                                      "file: {})",
                                      shown_path(in), kind, shown_path(fs::path(in).filename().string())));
      add(in);
    } else {
      // The default, experiments/, is relative to the working directory: say where that is.
      throw usage_error("no such experiment file or folder: " + shown_path(in) +
                        (fs::path(in).is_relative() ? " (relative to " + shown_path(fs::current_path(ec).string()) +
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
  // Names identify experiments in baselines, regress and compare: two files of one name would
  // collapse into one there.
  std::map<std::string, const config::experiment*> by_name;
  for (const auto& e : out) {
    const auto [first, fresh] = by_name.emplace(e.name, &e);
    if (fresh) continue;
    all.push_back({e.path, line_of_name(e.text), 1, "name",
                   "experiment name '" + e.name + "' is already used by " + shown_path(first->second->path) +
                       "; names must be unique across the files one command loads",
                   "rename one of them"});
  }
  if (!all.empty()) throw config_error(std::move(all));
  return out;
}

} // namespace bb::config
