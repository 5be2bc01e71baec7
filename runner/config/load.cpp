#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include "runner/config/build.hpp"
#include "runner/config/checks.hpp"
#include "runner/config/experiment.hpp"
#include "runner/config/schema_validate.hpp"

namespace bb::config {

namespace {

using detail::report;

// yaml-cpp's words for the commonest mistakes, with what to do about them.
std::string syntax_hint(const std::string& message) {
  if (message == "end of sequence flow not found") return "close the list with ']'";
  if (message == "end of map flow not found") return "close the map with '}'";
  if (message == "illegal map value") return "quote values that contain ': ', or start a new line";
  if (message == "end of map not found" || message == "end of sequence not found") return "check the indentation";
  return {};
}

/// The line (1-based) of the marker that opens a second document with content, or 0. A document
/// is what lies between '---' / '...' marker lines; one holding only blank and comment lines (the
/// space before a leading '---', what follows a closing '...') is no document.
int second_document_line(const std::string& text) {
  int documents = 0, line = 1, marker = 0;
  bool content = false;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string_view l(text.data() + at, end - at);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    const bool opens = l.rfind("---", 0) == 0 && (l.size() == 3 || l[3] == ' ' || l[3] == '\t');
    const bool closes = l == "...";
    if (opens || closes) {
      if (content) ++documents;
      content = false;
      marker = line;
    } else {
      const auto first = l.find_first_not_of(" \t");
      if (first != std::string_view::npos && l[first] != '#' && !content) {
        content = true;
        if (documents == 1) return marker > 0 ? marker : line;
      }
    }
    at = end + 1;
    ++line;
  }
  return 0;
}

// What yaml-cpp accepts but the loaded nodes no longer show where it was written: an alias used
// as a key (the node carries its anchor's position) and a tag (a tagged scalar reads as quoted).
// Found from the parser's events, which carry each use's own position; the same events tell
// `out` where each alias is used as a value, for diagnostics inside the value it stands for.
class event_checks : public YAML::EventHandler {
public:
  explicit event_checks(report& out) : out_(out) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { node(mark, anchor, nullptr); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto found = anchors_.find(anchor);
    const std::string name = found != anchors_.end() ? found->second.name : std::string("anchor");
    if (at_key()) {
      out_.add(at(mark), {}, "the alias *" + name + " is used as a key; experiment files do not take aliases as keys",
               "write the key out in full");
    }
    node(mark, 0, nullptr);
    if (const auto path = value_path(); path && found != anchors_.end())
      out_.note_alias({*path, at(mark), name, found->second.value, found->second.line});
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    check_tag(mark, tag);
    node(mark, anchor, &value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    check_tag(mark, tag);
    node(mark, anchor, nullptr);
    open_.push_back({false});
  }
  void OnSequenceEnd() override { open_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    check_tag(mark, tag);
    node(mark, anchor, nullptr);
    open_.push_back({true});
  }
  void OnMapEnd() override { open_.pop_back(); }
  void OnAnchor(const YAML::Mark& mark, const std::string& name) override {
    anchor_name_ = name;
    anchor_line_ = mark.line + 1;
  }

private:
  // One open collection: for a map, whether its next node is a key and the last key (a scalar's
  // text); for a sequence, the index of its current item.
  struct collection {
    bool map = false;
    bool next_is_key = true;
    std::string key;
    std::size_t next_index = 0, index = 0;
  };
  struct anchor_info {
    std::string name;
    detail::position value;
    int line = 0;
  };

  static detail::position at(const YAML::Mark& mark) { return {mark.line + 1, mark.column + 1}; }
  bool at_key() const { return !open_.empty() && open_.back().map && open_.back().next_is_key; }
  // Called as each node starts; inside a map, nodes alternate between key and value.
  void node(const YAML::Mark& mark, YAML::anchor_t anchor, const std::string* scalar) {
    if (anchor != 0) anchors_[anchor] = {anchor_name_, at(mark), anchor_line_};
    if (open_.empty()) return;
    collection& c = open_.back();
    if (!c.map) {
      c.index = c.next_index++;
    } else {
      if (c.next_is_key) c.key = scalar != nullptr ? *scalar : std::string();
      c.next_is_key = !c.next_is_key;
    }
  }
  // The path of the node that just started, if it is a value (not a key, nor inside one).
  std::optional<detail::yaml_path> value_path() const {
    detail::yaml_path path;
    for (const auto& c : open_) {
      if (c.map && !c.next_is_key) return std::nullopt; // inside a key
      path.push_back(c.map ? detail::path_step{c.key, 0, false} : detail::path_step{{}, c.index, true});
    }
    return path;
  }
  void check_tag(const YAML::Mark& mark, const std::string& tag) {
    if (tag.empty() || tag == "?" || tag == "!") return; // untagged (plain or quoted)
    static const std::string k_core = "tag:yaml.org,2002:";
    const std::string written = tag.rfind(k_core, 0) == 0 ? "!!" + tag.substr(k_core.size()) : tag;
    out_.add(at(mark), {}, "YAML tags such as '" + written + "' are not supported in experiment files",
             "remove the tag and write the value alone; quote it to make it a string");
  }

  report& out_;
  std::vector<collection> open_;
  std::map<YAML::anchor_t, anchor_info> anchors_;
  std::string anchor_name_;
  int anchor_line_ = 0;
};

YAML::Node parse(const std::string& text, report& out) {
  try {
    // One experiment per file: a second document would be ignored silently. Documents are
    // counted from their markers, not with YAML::LoadAll, which yaml-cpp 0.7 runs forever
    // (allocating without bound) on a stray ',' at the top level, such as a file that begins
    // ", 6": YAML::Load reads the first document and stops.
    if (const int line = second_document_line(text); line > 0) {
      out.add({line, 1}, {}, "a second YAML document starts here; an experiment file holds one",
              "remove the '---' (or '...') line and what follows, or move the second experiment to a file of its own");
      out.raise();
    }
    if (const auto problem = detail::first_byte_problem(text)) {
      out.add(problem->at, {}, problem->message, problem->hint);
      out.raise();
    }
    YAML::Node root = YAML::Load(text);
    std::istringstream in(text);
    YAML::Parser events(in);
    event_checks checks(out);
    events.HandleNextDocument(checks);
    if (!out.empty()) out.raise();
    return root;
  } catch (const YAML::DeepRecursion& e) {
    out.add({e.mark.line + 1, e.mark.column + 1}, {},
            "the document nests too deeply for the YAML parser (hundreds of levels); experiment files nest at "
            "most 32 levels",
            "look for a '[' or '{' that is never closed, or indentation that keeps growing");
  } catch (const YAML::ParserException& e) {
    if (const auto tab = detail::tab_in_indentation(text, e.mark.line + 1)) {
      out.add(*tab, {}, "tabs are not allowed for indentation in YAML", "indent with spaces");
    } else {
      out.add({e.mark.line + 1, e.mark.column + 1}, {}, "invalid YAML: " + e.msg, syntax_hint(e.msg));
    }
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

/// "n=1024" for messages: strings without their quotes.
std::string assignment_text(const std::string& axis, const nlohmann::json& value) {
  return axis + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
}

// An exclude entry that names two axes of one zip group with values at different positions of
// the group can never match: the group advances together, so no configuration has both.
void check_excludes_under_zip(const experiment& exp, const YAML::Node& root, report& out) {
  const auto values_of = [&](const std::string& axis) -> const std::vector<nlohmann::json>* {
    for (const auto& ax : exp.axes)
      if (ax.name == axis) return &ax.values;
    return nullptr;
  };
  const auto positions = [&](const std::string& axis, const nlohmann::json& value) {
    std::set<std::size_t> at;
    if (const auto* values = values_of(axis))
      for (std::size_t i = 0; i < values->size(); ++i)
        if (detail::canonical_value((*values)[i]) == detail::canonical_value(value)) at.insert(i);
    return at;
  };
  for (std::size_t e = 0; e < exp.exclude.size(); ++e) {
    const auto& entry = exp.exclude[e];
    if (!entry.is_object()) continue;
    for (const auto& group : exp.zip) {
      std::string first_axis;
      std::set<std::size_t> common;
      for (const auto& axis : group) {
        if (!entry.contains(axis)) continue;
        const auto at = positions(axis, entry[axis]);
        if (first_axis.empty()) {
          first_axis = axis;
          common = at;
          continue;
        }
        std::set<std::size_t> both;
        std::set_intersection(common.begin(), common.end(), at.begin(), at.end(), std::inserter(both, both.begin()));
        if (!both.empty()) {
          common = both;
          continue;
        }
        const auto* values = values_of(axis);
        const std::string given = assignment_text(first_axis, entry[first_axis]);
        const std::string paired = values != nullptr && !common.empty() && *common.begin() < values->size()
                                       ? assignment_text(axis, (*values)[*common.begin()])
                                       : axis;
        out.at_value(
            root, detail::yaml_path{} / "exclude" / e,
            fmt::format("this entry can never match: {} and {} are zipped, and {} goes with {}", given,
                        assignment_text(axis, entry[axis]), given, paired),
            fmt::format("give the values of one position of the zip group, such as {} with {}, or only one of its axes",
                        given, paired));
        break;
      }
    }
  }
}

// A sweep whose exclusions drop every configuration would store an empty run and call it done.
void check_selects_something(const experiment& exp, const YAML::Node& root, report& out) {
  const detail::sweep_size size = detail::count_configurations(exp);
  if (!size.exact || size.count > 0) return;
  out.at_key(root, detail::yaml_path{} / "exclude",
             "the exclude entries drop every configuration of the sweep: it selects nothing to run",
             "remove or narrow the entries that match everything: an entry with only `variant`, or only one "
             "axis, drops all of that variant or value");
}

} // namespace

experiment load_experiment_text(const std::string& text, const std::string& path_for_messages, const registry& reg) {
  report out(path_for_messages);
  if (const auto bad = detail::first_invalid_utf8(text)) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", bad->value);
    out.add(bad->at, {}, std::string("invalid UTF-8 byte ") + byte, "save the file as UTF-8");
    out.raise();
  }
  const YAML::Node root = parse(text, out);
  if (root.IsNull()) {
    // Empty, only comments, or text yaml-cpp reads as nothing (a stray ',' at the top level).
    const bool blank = second_document_line("x\n---\n" + text) == 0;
    out.add({1, 1}, {}, blank ? "the file is empty" : "the file holds no YAML map (yaml-cpp reads it as nothing)",
            blank ? "an experiment needs at least name, description, family and variants"
                  : "an experiment is a map: name:, description:, family: and variants: at the start of lines");
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

  static const family_info k_source_family{"source",
                                           "kernels compiled at run time from the experiment's CUDA files",
                                           {}};
  experiment exp = detail::build_experiment(root, source ? k_source_family : *ctx.family);
  if (source) detail::build_sources(root, path_for_messages, exp);
  exp.path = path_for_messages;
  exp.text = text;
  check_sweep_size(exp, root, out);
  check_excludes_under_zip(exp, root, out);
  if (out.empty()) check_selects_something(exp, root, out);
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
  struct stat st {};
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
  if (err == EFBIG) return refuse(fmt::format("the file is over the limit of {} bytes (1 MiB)", k_max_file_bytes));
  if (err != 0) return refuse(std::string("cannot read file: ") + std::strerror(err));
  return load_experiment_text(text, path, reg);
}

} // namespace bb::config
