#include "runner/common/path_text.hpp"

#include <sys/stat.h>

#include <filesystem>

#include <fmt/format.h>

namespace bb {

std::string relative_to_working_folder(const std::string& path) {
  const std::filesystem::path p(path);
  if (!p.is_absolute()) return path;
  std::error_code ec;
  const auto relative = p.lexically_proximate(std::filesystem::current_path(ec));
  if (ec || relative.empty() || relative.native().rfind("..", 0) == 0) return path;
  return relative.string();
}

std::string shown_path(std::string_view path) {
  bool plain = true;
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    plain = plain && u >= 0x20 && u != 0x7f;
  }
  if (plain) return std::string(path);
  std::string out = "\"";
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    case '\\': out += "\\\\"; break;
    case '"': out += "\\\""; break;
    default: out += u < 0x20 || u == 0x7f ? fmt::format("\\x{:02x}", u) : std::string(1, c);
    }
  }
  return out + "\"";
}

std::string file_type_words(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISREG(mode)) return "";
  return "a special file";
}

std::string shell_word(std::string_view word) {
  if (!word.empty() &&
      word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=%@+") ==
          std::string_view::npos)
    return std::string(word);
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

} // namespace bb
