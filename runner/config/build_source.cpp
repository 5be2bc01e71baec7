// The source variants of a validated document: each variant's own fields over the source: block's.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "runner/config/build.hpp"
#include "runner/config/expression.hpp"
#include "runner/config/yaml_adapter.hpp"
#include "runner/config/yaml_scalar.hpp"

namespace bb::config {

namespace fs = std::filesystem;

namespace detail {

namespace {

YAML::Node field_of(const YAML::Node& root, const YAML::Node& variant, const std::string& key) {
  if (variant.IsMap())
    if (const YAML::Node own = field(variant, key)) return own;
  return field(field(root, "source"), key);
}

std::vector<std::string> dims_of(const YAML::Node& node) {
  std::vector<std::string> out;
  if (node.IsSequence())
    for (const auto& d : node) out.push_back(d.Scalar());
  else if (node)
    out = split_top_level(node.Scalar()); // "ceil_div(n, tile), 8"
  return out;
}

std::string resolved(const fs::path& dir, const std::string& p) { return (dir / p).lexically_normal().string(); }

source_arg arg_of(const YAML::Node& node, const fs::path& dir) {
  source_arg a;
  a.tensor_map = field(node, "tensor_map").IsDefined();
  a.is_buffer = a.tensor_map || field(node, "buffer").IsDefined();
  a.name = field(node, a.tensor_map ? "tensor_map" : a.is_buffer ? "buffer" : "scalar").Scalar();
  if (a.tensor_map) {
    for (const auto& d : field(node, "dims")) a.dims.push_back(d.Scalar());
    for (const auto& b : field(node, "box")) a.box.push_back(b.Scalar());
    const std::string swizzle = field(node, "swizzle") ? field(node, "swizzle").Scalar() : "none";
    a.swizzle_bits = swizzle == "32B" ? 1 : swizzle == "64B" ? 2 : swizzle == "128B" ? 3 : 0;
    for (const auto& d : a.dims) a.expression += (a.expression.empty() ? "(" : " * (") + d + ")";
  }
  a.type = field(node, "type").Scalar();
  if (a.is_buffer) {
    if (!a.tensor_map) a.expression = field(node, "count").Scalar();
    a.output = to_bool(field(node, "output")).value_or(false);
    const YAML::Node init = field(node, "init");
    a.init_given = init.IsDefined();
    if (init.IsScalar()) {
      a.init = init.Scalar();
    } else if (init.IsMap() && field(init, "value")) {
      a.init = "value";
      a.value = to_number(field(init, "value")).value_or(0);
    } else if (init.IsMap() && field(init, "formula")) {
      a.init = "formula";
      a.formula = field(init, "formula").Scalar();
    } else if (init.IsMap()) {
      a.init = "file";
      a.file = resolved(dir, field(init, "file").Scalar());
    }
  } else {
    a.expression = field(node, "value") ? field(node, "value").Scalar() : a.name;
  }
  return a;
}

} // namespace

void build_sources(const YAML::Node& root, const std::string& path, experiment& exp) {
  const fs::path dir = fs::path(path).parent_path();
  const YAML::Node variants = field(root, "variants");
  for (const auto& v : variants) {
    source_variant s;
    s.name = v.IsMap() ? field(v, "name").Scalar() : v.Scalar();
    s.line = position_of(v).line;
    s.file = resolved(dir, field_of(root, v, "file").Scalar());
    s.kernel = field_of(root, v, "kernel").Scalar();
    for (const auto& kv : field_of(root, v, "defines")) s.defines.emplace_back(key_name(kv.first), kv.second.Scalar());
    for (const auto& inc : field_of(root, v, "include")) s.include_dirs.push_back(resolved(dir, inc.Scalar()));
    if (const YAML::Node compiler = field_of(root, v, "compiler")) s.compiler = compiler.Scalar();
    for (const auto& o : field_of(root, v, "options")) s.options.push_back(o.Scalar());
    s.grid = dims_of(field_of(root, v, "grid"));
    s.block = dims_of(field_of(root, v, "block"));
    if (const YAML::Node shared = field_of(root, v, "shared_bytes")) s.shared_bytes = shared.Scalar();
    for (const auto& a : field_of(root, v, "args")) s.args.push_back(arg_of(a, dir));
    if (const auto width = to_int(field_of(root, v, "smem_access_bytes")))
      s.smem_access_bytes = static_cast<int>(*width);
    if (const YAML::Node check = field_of(root, v, "check"); check.IsMap()) {
      source_check c;
      if (field(check, "reference")) c.reference = field(check, "reference").Scalar();
      if (field(check, "file")) c.file = resolved(dir, field(check, "file").Scalar());
      c.tolerance = to_number(field(check, "tolerance")).value_or(0);
      s.check = c;
    }
    exp.sources.push_back(std::move(s));
  }
  for (const auto& lib : field(field(root, "source"), "requires")) exp.requires_libraries.push_back(lib.Scalar());
  if (std::find(exp.requires_libraries.begin(), exp.requires_libraries.end(), "cutlass") !=
      exp.requires_libraries.end()) {
    std::vector<std::vector<std::string>> dirs;
    for (const auto& v : exp.sources) dirs.push_back(v.include_dirs);
    const library_search cutlass = find_cutlass(dirs, std::getenv("CUTLASS_DIR"));
    exp.skip_reason = cutlass.missing;
    if (!cutlass.include_dir.empty())
      for (auto& v : exp.sources) v.include_dirs.push_back(cutlass.include_dir);
  }
}

} // namespace detail

library_search find_cutlass(const std::vector<std::vector<std::string>>& include_dirs, const char* cutlass_dir) {
  const auto holds_cute = [](const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "cute" / "tensor.hpp", ec);
  };
  const bool everywhere = std::all_of(include_dirs.begin(), include_dirs.end(), [&](const auto& dirs) {
    return std::any_of(dirs.begin(), dirs.end(), [&](const std::string& d) { return holds_cute(d); });
  });
  if (everywhere && !include_dirs.empty()) return {};
  const std::string how = "; point CUTLASS_DIR at a CUTLASS checkout or release (its include/ folder is searched: "
                          "CUTLASS_DIR=$HOME/cutlass), or list CUTLASS's include folder under source: include:";
  if (cutlass_dir == nullptr || *cutlass_dir == 0)
    return {"", "CUTLASS not found: CUTLASS_DIR is not set and no include: folder holds cute/tensor.hpp" + how};
  for (const fs::path& dir : {fs::path(cutlass_dir) / "include", fs::path(cutlass_dir)})
    if (holds_cute(dir)) return {dir.lexically_normal().string(), ""};
  return {"", std::string("CUTLASS not found: CUTLASS_DIR is '") + cutlass_dir +
                  "', which holds neither include/cute/tensor.hpp nor cute/tensor.hpp" + how};
}

const source_variant* experiment::find_source(const std::string& variant) const {
  for (const auto& s : sources)
    if (s.name == variant) return &s;
  return nullptr;
}

std::string substitute_params(const std::string& text, const nlohmann::json& params) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (std::isalpha(c) == 0 && c != '_') {
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_')) ++end;
    const std::string word = text.substr(i, end - i);
    // A name after '::' or '.' is a member, never an axis.
    const bool member = (i >= 1 && text[i - 1] == '.') || (i >= 2 && text[i - 1] == ':' && text[i - 2] == ':');
    if (!member && params.is_object() && params.contains(word)) {
      const auto& v = params.at(word);
      out += v.is_string() ? v.get<std::string>() : v.dump();
    } else {
      out += word;
    }
    i = end;
  }
  return out;
}

std::size_t element_bytes(const std::string& type) {
  if (type == "int8" || type == "uint8") return 1;
  if (type == "int16" || type == "uint16" || type == "float16" || type == "bfloat16") return 2;
  if (type == "float" || type == "int32" || type == "uint32") return 4;
  if (type == "double" || type == "int64" || type == "uint64") return 8;
  return 0;
}

source_variant with_types_at(const source_variant& v, const nlohmann::json& params) {
  source_variant out = v;
  for (auto& a : out.args)
    if (element_bytes(a.type) == 0 && params.is_object() && params.contains(a.type) && params.at(a.type).is_string())
      a.type = params.at(a.type).get<std::string>();
  return out;
}

void check_source_configuration(const experiment& exp, const source_variant& variant, const nlohmann::json& params) {
  const source_variant v = with_types_at(variant, params);
  const std::string where = exp.name + "/" + v.name;
  for (const auto* dims : {&v.grid, &v.block})
    for (const auto& text : *dims) {
      const char* key = dims == &v.grid ? "grid" : "block";
      const std::int64_t d = evaluate_param_expression(text, params, where + ": " + key);
      if (d < 1 || d > 0x7fffffff)
        throw error(exit_code::usage, where + ": " + key + " '" + text + "' is " + std::to_string(d) +
                                          "; each dimension must be 1 .. 2^31-1");
    }
  if (evaluate_param_expression(v.shared_bytes, params, where + ": shared_bytes") < 0)
    throw error(exit_code::usage, where + ": shared_bytes '" + v.shared_bytes + "' is negative");
  for (const auto& a : v.args) {
    if (!a.is_buffer) {
      const std::string text = substitute_params(a.expression, params);
      const bool floating = a.type == "float" || a.type == "double" || a.type == "float16" || a.type == "bfloat16";
      const bool real = floating && text.find_first_of(".eE") != std::string::npos;
      if (!real) (void)evaluate_param_expression(a.expression, params, where + ": scalar '" + a.name + "'");
      continue;
    }
    const std::int64_t count = evaluate_param_expression(a.expression, params,
                                                         where + ": buffer '" + a.name + "' count");
    std::uint64_t bytes = 0;
    if (count < 0)
      throw error(exit_code::usage,
                  where + ": buffer '" + a.name + "' count '" + a.expression + "' is " + std::to_string(count));
    if (__builtin_mul_overflow(static_cast<std::uint64_t>(count), element_bytes(a.type), &bytes))
      throw error(exit_code::usage, where + ": buffer '" + a.name + "' count '" + a.expression +
                                        "' = " + std::to_string(count) + " elements of " +
                                        std::to_string(element_bytes(a.type)) + " bytes overflow 64 bits");
  }
}

std::int64_t evaluate_param_expression(const std::string& text, const nlohmann::json& params, const std::string& what) {
  try {
    return evaluate(text, [&](const std::string& name) -> std::optional<std::int64_t> {
      if (!params.is_object() || !params.contains(name)) return std::nullopt;
      const auto& v = params.at(name);
      if (v.is_number_integer()) return v.get<std::int64_t>();
      throw expression_error(text, 0, "axis '" + name + "' is " + v.dump() + ", not an integer");
    });
  } catch (const expression_error& e) {
    throw error(exit_code::usage, what + ": " + e.what());
  }
}

} // namespace bb::config
