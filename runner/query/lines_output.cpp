// `bankbench lines` printed: a table per configuration for reading, one table or one document for
// programs.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/common/path_text.hpp"
#include "runner/query/cells.hpp"
#include "runner/query/lines.hpp"

namespace bb::query {

namespace {

constexpr std::size_t k_source_width = 60; // source text beyond this is cut in table and markdown
constexpr const char* k_residual = "conflicts no address caused";

// A file under the working folder relative to it, others as stored; "(no line info)" for none.
std::string line_label(const source_line& l) {
  if (l.file.empty()) return "(no line info)";
  return fmt::format("{}:{}", relative_to_working_folder(l.file), l.line);
}

// The first `width` code points of `text`, with "..." where it was cut.
std::string clipped(const std::string& text, std::size_t width) {
  if (display_width(text) <= width) return text;
  std::size_t points = 0, i = 0;
  for (; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && points++ == width - 3) break;
  return text.substr(0, i) + "...";
}

cell unsigned_count(std::uint64_t v) { return count(static_cast<std::int64_t>(v)); }

cell share_cell(std::optional<double> share) {
  if (!share) return {"-", nullptr};
  return {fmt::format("{:.1f}%", 100 * *share), *share};
}

std::string hardware_text(const hardware_conflicts& h) {
  std::string parts;
  for (const auto& [name, value] : h.parts) parts += (parts.empty() ? "" : ", ") + fmt::format("{} {}", name, value);
  return fmt::format("{} ({})", h.total, parts);
}

std::size_t shown(std::size_t lines, std::size_t top) { return top == 0 ? lines : std::min(lines, top); }

// ---- table and markdown ----

text_table reading_table() {
  return text_table({{"rank", align::right},
                     {"line", align::left},
                     {"source", align::left},
                     {"instructions", align::left},
                     {"kinds", align::left},
                     {"executions", align::right},
                     {"wavefronts", align::right},
                     {"ideal", align::right},
                     {"excess", align::right},
                     {"share", align::right}});
}

void write_reading(const configuration_lines& c, std::size_t top, std::ostream& out, output_format format) {
  const std::string params_text = compact_params(c.params_json);
  const std::string title = fmt::format("run {} ({}), seq {}: {}{}", c.run_id, c.experiment, c.seq,
                                        short_variant(c.variant), params_text.empty() ? "" : " " + params_text);
  const std::string kernel = c.kernel.empty() ? "-" : c.kernel;
  if (format == output_format::markdown)
    out << "### " << title << "\n\n";
  else
    out << title << '\n';
  if (c.status != store::lines_status::ok) {
    out << fmt::format("kernel {}: lines not collected ({}){}\n", kernel, store::name_of(c.status),
                       c.note.empty() ? "" : ": " + c.note);
    return;
  }
  int instructions = 0;
  for (const auto& l : c.lines) instructions += l.instructions;
  out << fmt::format("kernel {}: {} shared-memory instruction{} on {} line{}, excess {} wavefronts\n", kernel,
                     instructions, instructions == 1 ? "" : "s", c.lines.size(), c.lines.size() == 1 ? "" : "s",
                     c.excess);
  if (!c.note.empty()) out << "note: " << c.note << '\n';
  out << '\n';
  if (c.lines.empty()) {
    out << "no shared-memory instructions\n";
    return;
  }
  text_table table = reading_table();
  const std::size_t n = shown(c.lines.size(), top);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& l = c.lines[i];
    table.add_row({count(static_cast<std::int64_t>(i + 1)), line_label(l), clipped(l.text, k_source_width), l.opcodes,
                   l.kinds, unsigned_count(l.executions), unsigned_count(l.wavefronts), unsigned_count(l.ideal),
                   unsigned_count(l.excess), share_cell(l.share)});
  }
  if (const auto residual = c.residual())
    table.add_row({"", "-", k_residual, "", "", "", "", "", number(*residual, 0), {"-", nullptr}});
  table.write(out, format);
  if (n < c.lines.size()) {
    std::uint64_t rest = 0;
    for (std::size_t i = n; i < c.lines.size(); ++i) rest += c.lines[i].excess;
    out << fmt::format("\n{} more line{} with excess {}; --top 0 shows every line\n", c.lines.size() - n,
                       c.lines.size() - n == 1 ? "" : "s", rest);
  }
  if (c.hardware)
    out << fmt::format("\n{}: hardware conflicts {} minus the lines' excess {}\n", k_residual,
                       hardware_text(*c.hardware), c.excess);
}

// ---- csv and json ----

std::vector<column> line_columns() {
  return {{"rank", align::right},         {"file", align::left},        {"line", align::right},
          {"source", align::left},        {"opcodes", align::left},     {"kinds", align::left},
          {"instructions", align::right}, {"executions", align::right}, {"wavefronts", align::right},
          {"ideal", align::right},        {"excess", align::right},     {"share", align::right}};
}

std::vector<cell> line_cells(const source_line& l, std::size_t rank) {
  return {count(static_cast<std::int64_t>(rank)),
          l.file,
          count(l.line),
          l.text,
          l.opcodes,
          l.kinds,
          count(l.instructions),
          unsigned_count(l.executions),
          unsigned_count(l.wavefronts),
          unsigned_count(l.ideal),
          unsigned_count(l.excess),
          share_cell(l.share)};
}

void write_csv(const std::vector<configuration_lines>& configurations, std::size_t top, std::ostream& out) {
  std::vector<column> columns = {{"run_id"},      {"experiment"}, {"seq"},          {"variant"},
                                 {"params_json"}, {"kernel"},     {"lines_status"}, {"row"}};
  for (auto& c : line_columns()) columns.push_back(c);
  columns.push_back({"hardware_conflicts"});
  columns.push_back({"note"});
  text_table table(columns);
  for (const auto& c : configurations) {
    const std::vector<cell> head = {
        count(c.run_id), c.experiment, count(c.seq), c.variant, c.params_json, c.kernel, store::name_of(c.status)};
    auto add = [&](const char* row, std::vector<cell> rest, cell hardware, const std::string& note) {
      std::vector<cell> cells = head;
      cells.push_back(row);
      for (auto& r : rest) cells.push_back(std::move(r));
      cells.resize(head.size() + 1 + line_columns().size());
      cells.push_back(std::move(hardware));
      cells.push_back(note.empty() ? cell("", nullptr) : cell(note));
      table.add_row(std::move(cells));
    };
    if (c.status != store::lines_status::ok || c.lines.empty()) add("none", {}, {"", nullptr}, c.note);
    const std::size_t n = shown(c.lines.size(), top);
    for (std::size_t i = 0; i < n; ++i) add("line", line_cells(c.lines[i], i + 1), {"", nullptr}, "");
    if (const auto residual = c.residual()) {
      std::vector<cell> rest(line_columns().size());
      rest[10] = number(*residual, 0); // excess
      add("residual", std::move(rest), number(c.hardware->total, 0), k_residual);
    }
  }
  table.write(out, output_format::csv);
}

void write_json(const std::vector<configuration_lines>& configurations, std::size_t top, std::ostream& out) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& c : configurations) {
    text_table lines(line_columns());
    const std::size_t n = shown(c.lines.size(), top);
    for (std::size_t i = 0; i < n; ++i) lines.add_row(line_cells(c.lines[i], i + 1));
    nlohmann::json hardware = nullptr;
    if (c.hardware) {
      hardware = {{"total", c.hardware->total}};
      for (const auto& [name, value] : c.hardware->parts) hardware[name] = value;
    }
    const auto residual = c.residual();
    all.push_back({{"run_id", c.run_id},
                   {"experiment", c.experiment},
                   {"seq", c.seq},
                   {"variant", c.variant},
                   {"params", params(c.params_json).value},
                   {"kernel", c.kernel.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.kernel)},
                   {"function", c.function.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.function)},
                   {"status", store::name_of(c.status)},
                   {"note", c.note.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.note)},
                   {"excess", c.excess},
                   {"hardware_conflicts", hardware},
                   {"residual", residual ? nlohmann::json(*residual) : nlohmann::json(nullptr)},
                   {"lines_total", c.lines.size()},
                   {"lines", n == 0 ? nlohmann::json::array() : lines.records()}});
  }
  out << nlohmann::json{{"configurations", all}}.dump(2) << '\n';
}

} // namespace

void write_lines(const std::vector<configuration_lines>& configurations, std::size_t top, std::ostream& out,
                 output_format format) {
  if (format == output_format::csv) return write_csv(configurations, top, out);
  if (format == output_format::json) return write_json(configurations, top, out);
  bool first = true;
  for (const auto& c : configurations) {
    if (!first) out << '\n';
    first = false;
    write_reading(c, top, out, format);
  }
}

} // namespace bb::query
