#include "runner/source/prediction_cache.hpp"

#include <exception>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "runner/common/atomic_file.hpp"
#include "runner/common/sha256.hpp"

namespace bb::source {

namespace {

// The layout of the file; a file of another layout is a miss.
constexpr int k_prediction_format = 1;

nlohmann::json totals_json(const model::side_totals& t) {
  return {t.requests, t.wavefronts, t.ideal_wavefronts, t.conflicts};
}

model::side_totals totals_of(const nlohmann::json& j) {
  model::side_totals t;
  t.requests = j.at(0).get<std::uint64_t>();
  t.wavefronts = j.at(1).get<std::uint64_t>();
  t.ideal_wavefronts = j.at(2).get<std::uint64_t>();
  t.conflicts = j.at(3).get<std::uint64_t>();
  return t;
}

std::string file_of(const std::string& cache_dir, const std::string& key) {
  return prediction_dir(cache_dir) + "/" + sha256_hex(key) + ".json";
}

} // namespace

std::string prediction_dir(const std::string& cache_dir) { return cache_dir + "/predictions"; }

std::optional<emulation> read_prediction(const std::string& cache_dir, const std::string& key) {
  if (cache_dir.empty()) return std::nullopt;
  std::string text;
  if (!read_whole_file(file_of(cache_dir, key), text)) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(text);
    if (j.at("format").get<int>() != k_prediction_format || j.at("key").get<std::string>() != key) return std::nullopt;
    emulation e;
    const auto& p = j.at("prediction");
    e.prediction.load = totals_of(p.at("load"));
    e.prediction.store = totals_of(p.at("store"));
    for (const auto& [kind, t] : p.at("kinds").items()) e.prediction.kinds[kind] = totals_of(t);
    const auto& l = j.at("lines");
    const int status = l.at("status").get<int>();
    if (status < 0 || status > static_cast<int>(store::lines_status::unsupported)) return std::nullopt;
    e.lines.status = static_cast<store::lines_status>(status);
    e.lines.note = l.at("note").get<std::string>();
    e.lines.kernel = l.at("kernel").get<std::string>();
    for (const auto& r : l.at("rows")) {
      store::line_row row;
      row.function = r.at("function").get<std::string>();
      row.pc = r.at("pc").get<std::uint32_t>();
      row.file = r.at("file").get<std::string>();
      row.line = r.at("line").get<int>();
      row.opcode = r.at("opcode").get<std::string>();
      row.kind = r.at("kind").get<std::string>();
      row.executions = r.at("executions").get<std::uint64_t>();
      row.threads = r.at("threads").get<std::uint64_t>();
      row.wavefronts = r.at("wavefronts").get<std::uint64_t>();
      row.ideal = r.at("ideal").get<std::uint64_t>();
      e.lines.rows.push_back(std::move(row));
    }
    e.smem_access_bytes = j.at("smem_access_bytes").get<int>();
    e.blocks = j.at("blocks").get<std::uint64_t>();
    e.blocks_run = j.at("blocks_run").get<std::uint64_t>();
    e.blocks_alike = j.value("blocks_alike", false);
    e.checked = j.at("checked").get<bool>();
    e.unchecked = j.at("unchecked").get<std::string>();
    const auto& v = j.at("verify");
    e.verify.ok = v.at("ok").get<bool>();
    e.verify.checked = v.at("checked").get<std::uint64_t>();
    e.verify.mismatches = v.at("mismatches").get<std::uint64_t>();
    e.verify.first_mismatch = v.at("first_mismatch").get<std::string>();
    e.from_cache = true;
    return e;
  } catch (const std::exception&) { // not JSON, or not this layout: as no file
    return std::nullopt;
  }
}

void write_prediction(const std::string& cache_dir, const std::string& key, const emulation& e) {
  if (cache_dir.empty()) return;
  nlohmann::json kinds = nlohmann::json::object();
  for (const auto& [kind, t] : e.prediction.kinds) kinds[kind] = totals_json(t);
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : e.lines.rows)
    rows.push_back({{"function", r.function},
                    {"pc", r.pc},
                    {"file", r.file},
                    {"line", r.line},
                    {"opcode", r.opcode},
                    {"kind", r.kind},
                    {"executions", r.executions},
                    {"threads", r.threads},
                    {"wavefronts", r.wavefronts},
                    {"ideal", r.ideal}});
  const nlohmann::json j = {
      {"format", k_prediction_format},
      {"key", key},
      {"prediction",
       {{"load", totals_json(e.prediction.load)}, {"store", totals_json(e.prediction.store)}, {"kinds", kinds}}},
      {"lines",
       {{"status", static_cast<int>(e.lines.status)},
        {"note", e.lines.note},
        {"kernel", e.lines.kernel},
        {"rows", rows}}},
      {"smem_access_bytes", e.smem_access_bytes},
      {"blocks", e.blocks},
      {"blocks_run", e.blocks_run},
      {"blocks_alike", e.blocks_alike},
      {"checked", e.checked},
      {"unchecked", e.unchecked},
      {"verify",
       {{"ok", e.verify.ok},
        {"checked", e.verify.checked},
        {"mismatches", e.verify.mismatches},
        {"first_mismatch", e.verify.first_mismatch}}}};
  try {
    write_file_atomically(file_of(cache_dir, key), j.dump(1) + "\n");
  } catch (const std::exception&) { // a read-only or full cache: the next run emulates again
  }
}

} // namespace bb::source
