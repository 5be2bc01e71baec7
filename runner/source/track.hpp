#pragma once
/// What a kernel file reads: the file and every header it includes, followed through the file's
/// folder and the include folders, and one SHA-256 over all of them. This hash is the part of the
/// compile cache key that changes when any of those files changes (CUTLASS's headers included,
/// when its folder is an include folder); the toolkit's own headers are covered by the compiler's
/// version in the key.
///
/// Following includes is textual: every `#include "x"` and `#include <x>` line counts, whichever
/// branch of an #if it is in (more files than the compiler reads, never fewer, except for an
/// #include of a macro). Hashing a CuTe kernel's few hundred headers costs tens of milliseconds,
/// so a manifest in the cache folder remembers, per file and include folders, every file read
/// (size, modification and change times, inode) and every folder searched (its times): when none
/// of them changed, its hash is used without reading a header. A file created where it would
/// shadow a header changes its folder's time, so it is seen too.
#include <string>
#include <vector>

namespace bb::source {

struct tracked_source {
  std::string hash;                 ///< SHA-256 over the file and its headers (contents and names)
  std::vector<std::string> headers; ///< the headers found, in the order they were first included
  bool from_manifest = false;       ///< the manifest was current: no file was read
};

/// Tracks `source_path` through `[its folder] + include_dirs`. `manifest_dir` holds the manifests;
/// "" reads everything every time. Throws compile_error when the source cannot be read.
tracked_source track_source(const std::string& source_path, const std::vector<std::string>& include_dirs,
                            const std::string& manifest_dir);

/// The file's text (for the compiler and the messages). Throws compile_error when it cannot be read.
std::string read_source(const std::string& path);

/// The folder a file's quoted includes are found in first: "." for a bare file name.
std::string source_dir(const std::string& path);

} // namespace bb::source
