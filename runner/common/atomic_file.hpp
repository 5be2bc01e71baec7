#pragma once
/// Output files written whole or not at all: a temporary file in the same folder, written,
/// flushed, fsync'ed and renamed over the target. A failed write leaves the previous file as it was.
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace bb {

/// What the file is for: data keeps an existing file's permissions (0666 less the umask for a new
/// one); a script is made executable as well.
enum class file_kind { data, script };

/// Writes `file` from what `write` puts in the stream it is given. Creates missing parent folders.
/// Throws output_error naming the file and the cause (disk full, I/O error, permission) on any
/// failure; the temporary file is removed and `file` is left untouched. Every command that writes
/// a file writes it so. A target that exists and is not a regular file (/dev/null, a device, a
/// FIFO, /dev/stdout) is written in place, its write errors thrown the same way (`-o /dev/full`
/// is exit 6); a folder is refused.
void write_file_atomically(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write,
                           file_kind kind = file_kind::data);

/// The same for a string already built.
void write_file_atomically(const std::filesystem::path& file, const std::string& contents,
                           file_kind kind = file_kind::data);

/// Reads all of `file` into `out`, as bytes; false when it cannot be opened or read.
bool read_whole_file(const std::filesystem::path& file, std::string& out);

} // namespace bb
