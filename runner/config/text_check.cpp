// UTF-8 is checked before parsing: yaml-cpp accepts some invalid bytes silently and would hand
// mangled names to the rest of the loader.
#include <cstdio>

#include "runner/config/build.hpp"

namespace bb::config::detail {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid.
std::size_t sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte
  if (b >= 0xC2 && b <= 0xDF)
    n = 2;
  else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0) lo = 0xA0; // no overlong forms
    if (b == 0xED) hi = 0x9F; // no surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F; // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

const char* control_name(unsigned char b) {
  switch (b) {
  case 0x00: return " (NUL)";
  case 0x07: return " (BEL)";
  case 0x08: return " (backspace)";
  case 0x0B: return " (vertical tab)";
  case 0x0C: return " (form feed)";
  case 0x1B: return " (ESC)";
  case 0x7F: return " (DEL)";
  default: return "";
  }
}

} // namespace

std::optional<text_problem> first_byte_problem(std::string_view text) {
  int line = 1, column = 1;
  const bool has_lf = text.find('\n') != std::string_view::npos;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) {
      if (!has_lf)
        return text_problem{{line, column},
                            "the file uses CR line endings (classic Mac OS); YAML reads only LF or CR LF",
                            "convert it, for example with `tr '\\r' '\\n' < FILE > NEW.yaml`, or save it with "
                            "Unix (LF) line endings"};
      return text_problem{{line, column},
                          "this line ends in a lone CR (a classic Mac OS line ending); YAML reads only LF or CR LF",
                          "end the line with LF like the rest of the file"};
    }
    if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", b);
      return text_problem{{line, column},
                          std::string("control byte ") + hex + control_name(b) + " in the file",
                          "remove it; inside a double-quoted string write it as an escape such as \"\\x" +
                              std::string(hex + 2) + "\""};
    }
    if (b == '\n') {
      ++line;
      column = 1;
    } else if ((b & 0xC0) != 0x80) {
      ++column; // one column per character, not per UTF-8 byte
    }
  }
  return std::nullopt;
}

std::optional<position> tab_in_indentation(std::string_view text, int line) {
  std::optional<position> last;
  int at = 1;
  for (std::size_t start = 0; start < text.size() && at <= line; ++at) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(start, end - start);
    const std::size_t first = l.find_first_not_of(" \t");
    const std::size_t indent = first == std::string_view::npos ? l.size() : first;
    const std::size_t tab = l.substr(0, indent).find('\t');
    if (tab != std::string_view::npos && first != std::string_view::npos)
      last = position{at, static_cast<int>(tab) + 1}; // the closest one to where yaml-cpp stopped
    start = end + 1;
  }
  return last;
}

std::optional<bad_byte> first_invalid_utf8(std::string_view text) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_length(text, i);
    if (n == 0) return bad_byte{{line, column}, static_cast<unsigned char>(text[i])};
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += n;
  }
  return std::nullopt;
}

} // namespace bb::config::detail
