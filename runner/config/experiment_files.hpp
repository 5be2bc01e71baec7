#pragma once
/// The experiment files a command names: folders expanded, every file loaded, names unique.
#include <string>
#include <vector>

#include "runner/config/experiment.hpp"

namespace bb::config {

/// Expands files and folders (folders: every *.yaml below, sorted) into experiment file paths,
/// each file once however many times it is named. A path that does not exist is a usage_error
/// naming it.
std::vector<std::string> experiment_files(const std::vector<std::string>& inputs);

/// Loads every file; when any has errors, throws one config_error with all files' diagnostics.
std::vector<config::experiment> load_all(const std::vector<std::string>& files);

} // namespace bb::config
