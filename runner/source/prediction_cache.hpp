#pragma once
/// The model backend's predictions of source variants kept on disk, beside the compile cache
/// (<cache dir>/predictions/<SHA-256 of the key>.json), so that an unchanged kernel at an unchanged
/// configuration is predicted without being emulated again. The key is the text emulate() builds
/// from everything its emulation reads (docs/bank-model.md, "The prediction cache"); the file
/// holds that text, and a file whose text is not the key asked for is a miss. No CUDA.
#include <optional>
#include <string>

#include "runner/source/emulate.hpp"

namespace bb::source {

/// The folder of the cached predictions under compile cache `cache_dir`.
std::string prediction_dir(const std::string& cache_dir);

/// The emulation stored under `key`, or nullopt: no file, a file of another key, or one that
/// cannot be read (which the next write replaces). Its compile fields and collect_ms are left
/// for the caller.
std::optional<emulation> read_prediction(const std::string& cache_dir, const std::string& key);

/// Stores `e` under `key`, written atomically; a cache that cannot be written is skipped
/// silently (the prediction stands, the next run emulates again).
void write_prediction(const std::string& cache_dir, const std::string& key, const emulation& e);

} // namespace bb::source
