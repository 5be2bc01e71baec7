#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

#include <fmt/format.h>

#include "config/build.hpp"
#include "config/checks.hpp"
#include "config/experiment.hpp"
#include "config/schema_validate.hpp"

namespace bb::config {

namespace {

using detail::report;

// yaml-cpp's words for the commonest mistakes, with what to do about them.
std::string syntax_hint(const std::string& message) {
  if (message == "end of sequence flow not found") return "close the list with ']'";
  if (message == "end of map flow not found") return "close the map with '}'";
  if (message == "illegal map value") return "quote values that contain ': ', or start a new line";
  if (message == "end of map not found" || message == "end of sequence not found")
    return "check the indentation";
  return {};
}

// The line (1-based) of the n-th document start marker "---" in `text`; 0 when there is none.
int document_marker_line(const std::string& text, int n) {
  int line = 1, seen = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view l(text.data() + at, end - at);
    if ((l.rfind("---", 0) == 0 && (l.size() == 3 || l[3] == ' ' || l[3] == '\r' || l[3] == '\t')) ||
        l == "..." || l == "...\r")
      if (++seen == n) return line;
    at = end + 1;
    ++line;
  }
  return 0;
}

YAML::Node parse(const std::string& text, report& out) {
  try {
    // One experiment per file: a second document would be ignored silently.
    auto docs = YAML::LoadAll(text);
    if (docs.size() > 1) {
      int line = docs[1].Mark().is_null() ? 0 : docs[1].Mark().line + 1;
      if (line > 0) { // point at the marker that opened it: the line to remove
        int marker = 0;
        for (int n = 1, at = 0; (at = document_marker_line(text, n)) != 0 && at <= line; ++n) marker = at;
        if (marker > 0 && (docs[0].Mark().is_null() || marker > docs[0].Mark().line + 1)) line = marker;
      }
      if (line == 0) {
        const bool opens_with_marker = document_marker_line(text, 1) != 0 && !docs[0].Mark().is_null() &&
                                       document_marker_line(text, 1) <= docs[0].Mark().line + 1;
        line = document_marker_line(text, opens_with_marker ? 2 : 1);
      }
      out.add({std::max(line, 1), 1}, {}, "a second YAML document starts here; an experiment file holds one",
              "remove the '---' (or '...') line and what follows, or move the second experiment to a file of its own");
      out.raise();
    }
    return docs.empty() ? YAML::Node() : docs[0];
  } catch (const YAML::ParserException& e) {
    out.add({e.mark.line + 1, e.mark.column + 1}, {}, "invalid YAML: " + e.msg, syntax_hint(e.msg));
  } catch (const YAML::Exception& e) {
    out.add({}, {}, "invalid YAML: " + e.msg);
  }
  out.raise();
}

void check_sweep_size(const experiment& exp, const YAML::Node& root, report& out) {
  const detail::sweep_size size = detail::count_configurations(exp);
  if (size.count <= k_max_configurations) return;
  const char* key = exp.axes.empty() ? "variants" : "axes";
  out.at_key(root, detail::yaml_path{} / key,
             "the sweep expands to " + std::to_string(size.count) + " configurations" +
                 (size.exact ? "" : " before exclusions") + ", more than the limit of " +
                 std::to_string(k_max_configurations),
             "narrow the axes, zip axes that vary together, or exclude combinations");
}

} // namespace

experiment load_experiment_text(const std::string& text, const std::string& path_for_messages,
                                const registry& reg) {
  report out(path_for_messages);
  if (const auto bad = detail::first_invalid_utf8(text)) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", bad->value);
    out.add(bad->at, {}, std::string("invalid UTF-8 byte ") + byte, "save the file as UTF-8");
    out.raise();
  }
  const YAML::Node root = parse(text, out);
  if (root.IsNull()) {
    out.add({1, 1}, {}, "the file is empty",
            "an experiment needs at least name, description, family and variants");
    out.raise();
  }
  if (!detail::check_shape(root, out)) out.raise();
  detail::check_duplicate_keys(root, out);
  detail::check_unique_items(root, out);
  detail::validate_schema(root, out);
  detail::check_context ctx{root, reg, out};
  detail::check_names(ctx);
  detail::check_axes(ctx);
  detail::check_source(ctx);
  detail::check_filters(ctx);
  const bool source = detail::field(root, "source").IsDefined();
  if (!out.empty() || (ctx.family == nullptr && !source)) out.raise();

  static const family_info k_source_family{"source", "kernels compiled at run time from the experiment's CUDA files", {}};
  experiment exp = detail::build_experiment(root, source ? k_source_family : *ctx.family);
  if (source) detail::build_sources(root, path_for_messages, exp);
  exp.path = path_for_messages;
  exp.text = text;
  check_sweep_size(exp, root, out);
  if (!out.empty()) out.raise();
  return exp;
}

experiment load_experiment_file(const std::string& path, const registry& reg) {
  const auto refuse = [&](const std::string& why, const std::string& hint = {}) -> experiment {
    throw config_error({diagnostic{path, 0, 0, "", why, hint}});
  };
  const auto kind_of_file = [](mode_t m) -> std::string {
    if (S_ISDIR(m)) return "a folder";
    if (S_ISFIFO(m)) return "a FIFO (named pipe)";
    if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
  };
  // Judged before opening: opening a FIFO waits for a writer, and a device can be read forever.
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return refuse(std::string("cannot read file: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return refuse(kind_of_file(st.st_mode) + ", not an experiment file",
                  "give a .yaml file (copy what a pipe or device gives into a file first)");
  if (st.st_size > static_cast<off_t>(k_max_file_bytes))
    return refuse(fmt::format("the file is {} bytes; experiment files are limited to {} bytes (1 MiB)",
                              static_cast<long long>(st.st_size), k_max_file_bytes),
                  "an experiment is a short description of a sweep; split it into several files");
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return refuse(std::string("cannot read file: ") + std::strerror(errno));
  std::string text;
  char buf[65536];
  int err = 0;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) err = EINVAL; // replaced since the stat above
  for (ssize_t n = 0; err == 0 && (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > k_max_file_bytes) err = EFBIG; // grew while being read
  }
  ::close(fd);
  if (err == EFBIG)
    return refuse(fmt::format("the file is over the limit of {} bytes (1 MiB)", k_max_file_bytes));
  if (err != 0) return refuse(std::string("cannot read file: ") + std::strerror(err));
  return load_experiment_text(text, path, reg);
}

} // namespace bb::config
