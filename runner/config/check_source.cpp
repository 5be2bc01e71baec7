// Source variants (a `source:` block, variants as maps): every expression parsed and its names
// checked against the axes, files found relative to the experiment, references resolved. The
// kernel itself is compiled by `validate` (runner/source), not here: config has no CUDA.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "runner/common/path_text.hpp"
#include "runner/common/suggest.hpp"
#include "runner/config/checks.hpp"
#include "runner/config/expression.hpp"
#include "runner/config/schema_validate.hpp"
#include "runner/config/yaml_adapter.hpp"
#include "runner/config/yaml_scalar.hpp"

namespace bb::config::detail {

namespace fs = std::filesystem;

namespace {

// Quoted values of axis `name`, which `text` (at `path`) evaluates as an integer: reported once,
// at each quoted value, rather than at every variant line that evaluates it.
void check_integer_axis(check_context& ctx, const std::string& name, const std::string& text, const yaml_path& path) {
  if (ctx.string_axes_reported.count(name) != 0) return;
  for (const auto& [axis, values] : ctx.axes) {
    if (axis != name || !values.IsSequence()) continue;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const YAML::Node v = values[i];
      if (!v.IsScalar() || kind_of(v) != node_kind::string) continue;
      ctx.string_axes_reported.insert(name);
      const bool integer = resolve_plain(v.Scalar()) == node_kind::integer;
      ctx.out.at_value(ctx.root, yaml_path{} / "axes" / name / i,
                       "axis '" + name + "' value '" + v.Scalar() + "' is a quoted string, but '" + text + "' (" +
                           key_text(path) + ") needs an integer",
                       integer ? "write " + v.Scalar() + " without quotes"
                               : "integer expressions take integer values; a string axis goes only into template "
                                 "arguments and defines");
    }
  }
}

// An expression: parsed, and its names must be axes (or i, the element's index, in an init formula).
void check_expression(check_context& ctx, const yaml_path& path, const YAML::Node& node, const std::string& text,
                      bool element_index = false) {
  try {
    for (const auto& name : expression_names(text)) {
      if (element_index && name == "i") continue;
      const auto names = axis_names(ctx);
      check_integer_axis(ctx, name, text, path);
      if (std::find(names.begin(), names.end(), name) == names.end())
        ctx.out.at_value(ctx.root, path, "'" + text + "' uses '" + name + "', which is not an axis of this experiment",
                         names.empty() ? "add it under axes:" : suggestion(name, names, "its axes are "));
    }
  } catch (const expression_error& e) {
    // In a flow list [a, b] YAML splits at every comma, ceil_div(n, tile)'s too.
    const bool split = !element_index &&
                       (node.Style() == YAML::EmitterStyle::Flow || e.reason().find("expected ')'") == 0 ||
                        e.reason().find("unexpected ')'") == 0);
    ctx.out.at_value(
        ctx.root, path, "bad expression " + std::string(e.what()),
        split
            ? "a [ ] list splits at every comma: write 'grid: ceil_div(n, tile), 8' unbracketed, or quote each expression"
            : std::string("integers, axis names") + (element_index ? ", i (the element's index)" : "") +
                  ", + - * / % ( ), min, max, ceil_div");
  }
}

void check_expression(check_context& ctx, const yaml_path& path, const YAML::Node& node) {
  if (!node.IsScalar()) return; // the schema has reported it
  check_expression(ctx, path, node, node.Scalar());
}

void check_dims(check_context& ctx, const yaml_path& path, const YAML::Node& node) {
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) check_expression(ctx, path / i, node[i]);
    return;
  }
  if (!node.IsScalar()) return;
  const auto parts = split_top_level(node.Scalar());
  if (parts.size() > 3)
    ctx.out.at_value(ctx.root, path, "expected at most 3 dimensions, got " + std::to_string(parts.size()), "x, y, z");
  for (const auto& part : parts) check_expression(ctx, path, node, part);
}

void check_path(check_context& ctx, const yaml_path& path, const YAML::Node& node, const char* what, bool folder) {
  if (kind_of(node) != node_kind::string) return;
  const fs::path dir = fs::path(ctx.out.file()).parent_path();
  const fs::path p = dir / node.Scalar();
  std::error_code ec;
  const bool ok = folder ? fs::is_directory(p, ec) : fs::is_regular_file(p, ec);
  // A plain name in single quotes as before; one with a control byte escaped, in double quotes.
  const std::string shown = shown_path(node.Scalar());
  const std::string quoted = shown == node.Scalar() ? "'" + shown + "'" : shown;
  if (ok) return;
  // Something else of that name (a folder for a file, a FIFO) is named for what it is.
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    ctx.out.at_value(ctx.root, path, std::string("cannot find the ") + what + " " + quoted,
                     "paths are relative to the experiment file's folder");
    return;
  }
  std::string is = file_type_words(st.st_mode);
  if (is.empty()) is = "a file";
  ctx.out.at_value(ctx.root, path,
                   std::string("the ") + what + " " + quoted + " is " + is + ", not " +
                       (folder ? "a folder" : "a regular file"),
                   folder ? "name the folder that holds the headers" : "name the file itself");
}

struct merged {
  YAML::Node node;
  yaml_path path;
};

// A field of variant `i`: its own, else the source block's.
merged field_of(const check_context& ctx, const YAML::Node& variant, std::size_t i, const std::string& key) {
  if (variant.IsMap())
    if (const YAML::Node own = field(variant, key)) return {own, yaml_path{} / "variants" / i / key};
  return {field(field(ctx.root, "source"), key), yaml_path{} / "source" / key};
}

std::vector<std::string> source_variant_names(const check_context& ctx) {
  std::vector<std::string> names;
  const YAML::Node variants = field(ctx.root, "variants");
  if (!variants.IsSequence()) return names;
  for (const auto& v : variants) {
    if (kind_of(v) == node_kind::string)
      names.push_back(v.Scalar());
    else if (v.IsMap() && kind_of(field(v, "name")) == node_kind::string)
      names.push_back(field(v, "name").Scalar());
  }
  return names;
}

// The schema's element_type: its names, and what CUDA and C call them (half for float16).
const nlohmann::json& element_type_schema() { return experiment_schema().at("definitions").at("element_type"); }

const std::vector<std::string>& element_type_names() {
  static const std::vector<std::string> names = element_type_schema().at("enum").get<std::vector<std::string>>();
  return names;
}

// "float, double, ... or uint64"
const std::string& element_type_list() {
  static const std::string list = [] {
    std::string s;
    const auto& names = element_type_names();
    for (std::size_t i = 0; i < names.size(); ++i)
      s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return s;
  }();
  return list;
}

// An argument's type: an element type, or an axis whose every value is one (the schema took any
// identifier).
void check_arg_type(check_context& ctx, const yaml_path& at, const YAML::Node& type) {
  if (kind_of(type) != node_kind::string) return;
  const std::string& t = type.Scalar();
  const auto& types = element_type_names();
  if (std::find(types.begin(), types.end(), t) != types.end()) return;
  const auto names = axis_names(ctx);
  if (std::find(names.begin(), names.end(), t) == names.end()) {
    std::vector<std::string> both = types;
    both.insert(both.end(), names.begin(), names.end());
    const auto& aliases = element_type_schema().at("x-aliases");
    const std::string guess = aliases.contains(t) ? "did you mean '" + aliases.at(t).get<std::string>() + "'?"
                                                  : did_you_mean(t, both);
    ctx.out.at_value(ctx.root, at / "type", "'" + t + "' is neither an element type nor an axis of this experiment",
                     (guess.empty() ? "" : guess + " ") + "use " + element_type_list() +
                         ", or an axis whose values are those");
    return;
  }
  const YAML::Node values = field(field(ctx.root, "axes"), t);
  if (!values.IsSequence()) return; // the axes' own checks speak for it
  for (std::size_t k = 0; k < values.size(); ++k)
    if (kind_of(values[k]) != node_kind::string ||
        std::find(types.begin(), types.end(), values[k].Scalar()) == types.end()) {
      ctx.out.at_value(ctx.root, at / "type",
                       "'" + t + "' names the axis " + t + ", whose value '" + values[k].Scalar() +
                           "' is not an element type",
                       "give the axis only " + element_type_list() + ", or give the argument one of those");
      return;
    }
}

// A buffer's or tensor map's init: its file found, its formula's names axes or i.
void check_init(check_context& ctx, const yaml_path& at, const YAML::Node& arg) {
  const YAML::Node init = field(arg, "init");
  if (!init.IsMap()) return;
  if (field(init, "file")) check_path(ctx, at / "init" / "file", field(init, "file"), "input file", false);
  if (field(init, "formula").IsScalar())
    check_expression(ctx, at / "init" / "formula", field(init, "formula"), field(init, "formula").Scalar(), true);
}

// A tensor map: dims and box, as many of each, every one an expression; no count (the product of
// dims is the tensor's size).
void check_tensor_map(check_context& ctx, const yaml_path& at, const YAML::Node& arg, const YAML::Node& name) {
  const std::string shown = kind_of(name) == node_kind::string ? name.Scalar() : "";
  for (const char* k : {"dims", "box"}) {
    const YAML::Node list = field(arg, k);
    if (!list)
      ctx.out.at_value(ctx.root, at, "tensor map '" + shown + "' has no '" + k + "'",
                       std::string("add '") + k + ": [...]', innermost dimension first");
    else if (list.IsSequence())
      for (std::size_t i = 0; i < list.size(); ++i) check_expression(ctx, at / k / i, list[i]);
  }
  const YAML::Node dims = field(arg, "dims"), box = field(arg, "box");
  if (dims.IsSequence() && box.IsSequence() && dims.size() != box.size())
    ctx.out.at_value(ctx.root, at / "box",
                     "tensor map '" + shown + "' has " + std::to_string(dims.size()) + " dims but a box of " +
                         std::to_string(box.size()),
                     "give the box one extent per dimension");
  if (field(arg, "count"))
    ctx.out.at_key(ctx.root, at / "count", "a tensor map's elements are the product of its dims", "remove 'count'");
  if (field(arg, "value"))
    ctx.out.at_key(ctx.root, at / "value", "'value' is for scalars", "use 'init: {value: x}' to fill the tensor");
  check_init(ctx, at, arg);
}

void check_args(check_context& ctx, const merged& args, std::size_t& outputs) {
  if (!args.node.IsSequence()) return;
  std::vector<std::string> seen;
  for (std::size_t a = 0; a < args.node.size(); ++a) {
    const YAML::Node arg = args.node[a];
    if (!arg.IsMap()) continue;
    const yaml_path at = args.path / a;
    check_arg_type(ctx, at, field(arg, "type"));
    const bool map = field(arg, "tensor_map").IsDefined();
    const bool buffer = map || field(arg, "buffer").IsDefined();
    const char* kind = map ? "tensor_map" : buffer ? "buffer" : "scalar";
    const YAML::Node name = field(arg, kind);
    if (kind_of(name) == node_kind::string) {
      if (std::find(seen.begin(), seen.end(), name.Scalar()) != seen.end())
        ctx.out.at_value(ctx.root, at / kind, "argument '" + name.Scalar() + "' is listed twice",
                         "give each argument its own name");
      seen.push_back(name.Scalar());
    }
    if (!map)
      for (const char* k : {"dims", "box", "swizzle"})
        if (field(arg, k))
          ctx.out.at_key(ctx.root, at / k, std::string("'") + k + "' is for tensor maps",
                         "remove it, or make the argument 'tensor_map: NAME'");
    if (map) {
      check_tensor_map(ctx, at, arg, name);
      if (to_bool(field(arg, "output")).value_or(false)) ++outputs;
    } else if (buffer) {
      if (const YAML::Node count = field(arg, "count"))
        check_expression(ctx, at / "count", count);
      else
        ctx.out.at_value(ctx.root, at, "buffer '" + name.Scalar() + "' has no 'count'",
                         "add 'count: <elements, an expression>'");
      if (field(arg, "value"))
        ctx.out.at_key(ctx.root, at / "value", "'value' is for scalars", "use 'init: {value: x}' to fill a buffer");
      check_init(ctx, at, arg);
      if (to_bool(field(arg, "output")).value_or(false)) ++outputs;
    } else {
      for (const char* k : {"count", "init", "output"})
        if (field(arg, k)) ctx.out.at_key(ctx.root, at / k, std::string("'") + k + "' is for buffers", "remove it");
      const YAML::Node value = field(arg, "value");
      if (kind_of(value) == node_kind::string) {
        check_expression(ctx, at / "value", value);
      } else if (!value && kind_of(name) == node_kind::string) {
        const auto names = axis_names(ctx);
        if (std::find(names.begin(), names.end(), name.Scalar()) == names.end())
          ctx.out.at_value(ctx.root, at, "scalar '" + name.Scalar() + "' has no 'value' and no axis of that name",
                           "add 'value: <expression>' or an axis '" + name.Scalar() + "'");
      }
    }
  }
}

void check_variant(check_context& ctx, const YAML::Node& variant, std::size_t i, const std::string& name,
                   const std::vector<std::string>& names) {
  const yaml_path here = yaml_path{} / "variants" / i;
  for (const char* required : {"file", "kernel", "grid", "block"})
    if (!field_of(ctx, variant, i, required).node)
      ctx.out.at_value(ctx.root, here, "source variant '" + name + "' has no '" + required + "'",
                       std::string("add '") + required + ": ...' to the variant or to the source: block");
  const merged file = field_of(ctx, variant, i, "file");
  if (file.node) check_path(ctx, file.path, file.node, "kernel source", false);
  const merged include = field_of(ctx, variant, i, "include");
  if (include.node.IsSequence())
    for (std::size_t k = 0; k < include.node.size(); ++k)
      check_path(ctx, include.path / k, include.node[k], "include folder", true);
  for (const char* dims : {"grid", "block"})
    if (const merged m = field_of(ctx, variant, i, dims); m.node) check_dims(ctx, m.path, m.node);
  if (const merged m = field_of(ctx, variant, i, "shared_bytes"); m.node) check_expression(ctx, m.path, m.node);
  const merged defines = field_of(ctx, variant, i, "defines");
  if (defines.node.IsMap())
    for (const auto& kv : defines.node) {
      const std::string key = key_name(kv.first);
      const bool ident = !key.empty() && (std::isalpha(static_cast<unsigned char>(key[0])) != 0 || key[0] == '_') &&
                         std::all_of(key.begin(), key.end(), [](char c) {
                           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
                         });
      if (!ident)
        ctx.out.at_key(ctx.root, defines.path / key, "'" + key + "' is not a macro name",
                       "use a C identifier such as TILE");
    }
  std::size_t outputs = 0;
  check_args(ctx, field_of(ctx, variant, i, "args"), outputs);
  const merged check = field_of(ctx, variant, i, "check");
  if (!check.node.IsMap()) return;
  const bool by_reference = field(check.node, "reference").IsDefined(), by_file = field(check.node, "file").IsDefined();
  if (by_reference == by_file)
    ctx.out.at_value(
        ctx.root, check.path,
        by_file ? "'reference' and 'file' cannot be combined" : "needs one of 'reference' or 'file'",
        "check against another variant ('reference: name') or a file of the expected bytes ('file: path')");
  if (outputs == 0)
    ctx.out.at_value(ctx.root, check.path, "variant '" + name + "' has a check but no output buffer",
                     "mark the buffers the kernel writes with 'output: true'");
  if (const YAML::Node ref = field(check.node, "reference"); kind_of(ref) == node_kind::string) {
    if (ref.Scalar() == name)
      ctx.out.at_value(ctx.root, check.path / "reference", "variant '" + name + "' cannot be its own reference",
                       "name another variant, or remove the check (the variant is then stored unverified)");
    else if (std::find(names.begin(), names.end(), ref.Scalar()) == names.end())
      ctx.out.at_value(ctx.root, check.path / "reference", "'" + ref.Scalar() + "' is not a variant of this experiment",
                       suggestion(ref.Scalar(), names, "its variants are "));
  }
  if (const YAML::Node f = field(check.node, "file")) {
    check_path(ctx, check.path / "file", f, "expected-output file", false);
    if (outputs > 1)
      ctx.out.at_value(ctx.root, check.path / "file",
                       "a check file holds one output, and variant '" + name + "' has " + std::to_string(outputs),
                       "check against a reference variant instead");
  }
}

} // namespace

void check_source(check_context& ctx) {
  const YAML::Node source = field(ctx.root, "source");
  const YAML::Node variants = field(ctx.root, "variants");
  if (!source) {
    if (ctx.root.IsMap() && !field(ctx.root, "family"))
      ctx.out.add({1, 1}, yaml_path{} / "family", "missing required key 'family'",
                  "add 'family: ...' for a built-in family, or a 'source:' block for a kernel of your own");
    if (variants.IsSequence())
      for (std::size_t i = 0; i < variants.size(); ++i)
        if (variants[i].IsMap())
          ctx.out.at_value(ctx.root, yaml_path{} / "variants" / i, "a variant written as a map needs a 'source:' block",
                           "add 'source: {file: kernel.cu}' or name a variant of the family");
    return;
  }
  if (!source.IsMap() || !variants.IsSequence()) return; // the schema has reported it
  const std::vector<std::string> names = source_variant_names(ctx);
  std::vector<std::string> seen;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const YAML::Node v = variants[i];
    std::string name;
    if (kind_of(v) == node_kind::string)
      name = v.Scalar();
    else if (v.IsMap() && kind_of(field(v, "name")) == node_kind::string)
      name = field(v, "name").Scalar();
    else
      continue;
    if (v.IsMap()) {
      if (std::find(seen.begin(), seen.end(), name) != seen.end())
        ctx.out.at_value(ctx.root, yaml_path{} / "variants" / i / "name", "'" + name + "' is listed more than once",
                         "give each variant its own name");
      ctx.variants.push_back(name); // string items were added by check_names
    }
    seen.push_back(name);
    check_variant(ctx, v, i, name, names);
  }
}

} // namespace bb::config::detail
