#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

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

YAML::Node parse(const std::string& text, report& out) {
  try {
    return YAML::Load(text);
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
  const auto fail = [&](int err) -> experiment {
    throw config_error(
        {diagnostic{path, 0, 0, "", std::string("cannot read file: ") + std::strerror(err), ""}});
  };
  struct closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  const std::unique_ptr<std::FILE, closer> file(std::fopen(path.c_str(), "rb"));
  if (!file) return fail(errno);
  std::string text;
  char buf[65536];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, file.get())) > 0) text.append(buf, n);
  if (std::ferror(file.get())) return fail(errno); // e.g. a directory: EISDIR
  return load_experiment_text(text, path, reg);
}

} // namespace bb::config
