#pragma once
// File names as messages show them, and what a file that is not a regular file is.
#include <sys/types.h>

#include <string>
#include <string_view>

namespace bb {

/// `path` as a message shows it: unchanged when every byte is printable (UTF-8 included), else in
/// double quotes with C escapes (\n, \t, \x1b, \\, \"), so a newline or a terminal escape in a file
/// name can neither forge a line of output nor drive the terminal.
std::string shown_path(std::string_view path);

/// `path` relative to the working folder where it is an absolute path under it (as line info names
/// files: "/work/repo/kernels/a.cu" -> "kernels/a.cu"); any other path unchanged. Not escaped.
std::string relative_to_working_folder(const std::string& path);

/// `word` as a POSIX shell reads it back as one word: unchanged when it holds only characters a
/// shell leaves alone, else in single quotes (a quote inside as '\'').
std::string shell_word(std::string_view word);

/// What a file of this st_mode is, in words: "a folder", "a FIFO", "a character device", "a block
/// device", "a socket"; "" for a regular file.
std::string file_type_words(mode_t mode);

} // namespace bb
