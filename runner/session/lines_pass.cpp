#include "runner/session/lines_pass.hpp"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/common/atomic_file.hpp"
#include "runner/common/child_process.hpp"
#include "runner/common/error.hpp"
#include "runner/common/sha256.hpp"
#include "runner/launch/device.hpp"
#include "runner/launch/device_memory.hpp"
#include "runner/query/lines.hpp"
#include "runner/registry/registry.hpp"
#include "runner/source/compile.hpp"
#include "runner/source/nvcc.hpp"
#include "runner/source/variants.hpp"
#include "runner/store/database.hpp"

namespace bb::session {

namespace {

bool glob(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

std::uint64_t value_of(const profile::sass_record& r, const char* name) {
  const auto it = r.values.find(name);
  return it == r.values.end() ? 0 : it->second;
}

// The kind of a shared-memory instruction, from which of CUPTI's per-kind counts it has.
std::string kind_of(const profile::sass_record& r) {
  static const std::pair<const char*, const char*> kinds[] = {
      {"smsp__sass_inst_executed_op_ldsm", "ldsm"},         {"smsp__sass_inst_executed_op_shared_stsm", "stsm"},
      {"smsp__sass_inst_executed_op_shared_atom", "atoms"}, {"smsp__sass_inst_executed_op_shared_gmma", "gmma"},
      {"smsp__sass_inst_executed_op_ldgsts", "ldgsts"},     {"smsp__sass_inst_executed_op_shared_ld", "lds"},
      {"smsp__sass_inst_executed_op_shared_st", "sts"},
  };
  for (const auto& [metric, kind] : kinds)
    if (value_of(r, metric) > 0) return kind;
  return "shared";
}

// nvdisasm next to the nvcc bankbench uses, else on PATH; "" where there is none.
std::string nvdisasm_path() {
  try {
    const std::string nvcc = source::find_nvcc().path;
    const std::string beside = nvcc.substr(0, nvcc.find_last_of('/') + 1) + "nvdisasm";
    if (access(beside.c_str(), X_OK) == 0) return beside;
  } catch (const error&) {
  }
  return "nvdisasm";
}

// nvdisasm's listing of `cubin`: read from the cache folder (by the cubin's SHA-256: CUPTI's CRC
// can be one for two cubins), else made with `nvdisasm -c` and kept there; "" where there is no
// nvdisasm. Starting nvdisasm on a cubin took 0.6 to 1.3 s per collecting process on an H100's host
// while a sweep's configurations mostly share a few cubins, so one process lists each (a lock on
// the cache entry) and the others read it.
std::string listing_of(const std::vector<char>& cubin, std::string& note) {
  const std::string dir = source::default_cache_dir();
  const std::string cached =
      dir.empty() ? "" : fmt::format("{}/sass/{}.txt", dir, sha256_hex(std::string(cubin.begin(), cubin.end())));
  std::string text;
  if (!cached.empty() && read_whole_file(cached, text)) return text;
  int lock = -1;
  if (!cached.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir + "/sass", ec);
    lock = open((cached + ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (lock >= 0) flock(lock, LOCK_EX); // another process may be listing it now
    if (read_whole_file(cached, text)) {
      if (lock >= 0) close(lock);
      return text;
    }
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/bankbench-lines-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd >= 0) {
    const bool written = write(fd, cubin.data(), cubin.size()) == static_cast<ssize_t>(cubin.size());
    close(fd);
    if (written) {
      auto result = run_captured({nvdisasm_path(), "-c", path});
      if (result.exit_code == 0) {
        text = std::move(result.output);
        if (!cached.empty()) {
          try {
            write_file_atomically(cached, text);
          } catch (const error& x) {
            spdlog::debug("lines: {}", x.what());
          }
        }
      } else if (note.empty()) {
        note = result.spawn_errno != 0 ? "no nvdisasm found: opcodes left blank"
                                       : "nvdisasm failed: opcodes left blank";
      }
    }
    unlink(path.c_str());
  }
  if (lock >= 0) close(lock);
  return text;
}

// Opcodes of every function the records point into; empty where nvdisasm is not there.
opcode_map disassemble(const std::vector<profile::sass_record>& records, std::string& note) {
  opcode_map out;
  std::set<const std::vector<char>*> seen;
  for (const auto& r : records) {
    const auto* cubin = profile::sass_lines::cubin_of(r.crc, r.function);
    if (cubin == nullptr || !seen.insert(cubin).second) continue;
    const auto parsed = parse_disassembly(listing_of(*cubin, note));
    out.insert(parsed.begin(), parsed.end());
  }
  return out;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

bool lines_selected(const std::vector<std::string>& patterns, const config::experiment& e,
                    const config::configuration& cfg) {
  if (patterns.empty()) return true;
  for (const auto& p : patterns) {
    if (const auto eq = p.find('='); eq != std::string::npos) {
      const std::string key = p.substr(0, eq);
      if (!cfg.params.contains(key)) continue;
      const auto& v = cfg.params.at(key);
      if (glob(p.substr(eq + 1), v.is_string() ? v.get<std::string>() : v.dump())) return true;
    } else if (glob(p, e.name + "/" + cfg.variant) || glob(p, cfg.variant)) {
      return true;
    }
  }
  return false;
}

bool wants_lines(const run_plan& plan, const config::experiment& e, const config::configuration& cfg) {
  if (plan.model()) return false;
  return (plan.lines && lines_selected(plan.lines_for, e, cfg)) || (e.lines && lines_selected(e.lines_for, e, cfg));
}

opcode_map parse_disassembly(const std::string& text) {
  opcode_map out;
  std::string function;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    // A function's code begins at its label: ".text._Z9transposePfS_i:"
    if (line.compare(first, 6, ".text.") == 0 && line.back() == ':') {
      function = line.substr(first + 6, line.size() - first - 7);
      continue;
    }
    // An instruction: "/*0180*/   @!P0 STS.128 [R5], R0 ;"
    if (function.empty() || line.compare(first, 2, "/*") != 0) continue;
    const auto close = line.find("*/", first);
    if (close == std::string::npos) continue;
    std::uint32_t pc = 0;
    if (std::sscanf(line.c_str() + first + 2, "%x", &pc) != 1) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string word;
    rest >> word;
    if (!word.empty() && word.front() == '@') rest >> word; // the predicate
    while (!word.empty() && (word.back() == ';' || word.back() == ',')) word.pop_back();
    if (!word.empty()) out[{function, pc}] = word;
  }
  return out;
}

store::line_collection lines_of(const std::vector<profile::sass_record>& records, const opcode_map& opcodes) {
  store::line_collection out;
  if (records.empty()) {
    out.status = store::lines_status::no_records;
    out.note = "CUPTI gave no record for this launch: its kernel has no shared-memory instruction, or it "
               "launched no kernel";
    return out;
  }
  bool any_line = false;
  for (const auto& r : records) {
    if (out.kernel.empty()) out.kernel = r.function;
    const std::uint64_t ldgsts = value_of(r, "smsp__sass_inst_executed_op_ldgsts");
    const std::uint64_t executions = value_of(r, "smsp__sass_inst_executed_op_shared") + ldgsts;
    const std::uint64_t wavefronts = value_of(r, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared");
    if (executions == 0 && wavefronts == 0) continue; // not a shared-memory instruction
    store::line_row row;
    row.function = r.function;
    row.pc = r.pc;
    row.file = r.file;
    row.line = r.line;
    const auto op = opcodes.find({r.function, r.pc});
    if (op != opcodes.end()) row.opcode = op->second;
    row.kind = kind_of(r);
    row.executions = executions;
    row.threads = value_of(r, "smsp__sass_thread_inst_executed_op_shared_pred_on") +
                  value_of(r, "smsp__sass_thread_inst_executed_op_ldgsts_pred_on");
    row.wavefronts = wavefronts;
    row.ideal = value_of(r, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal");
    any_line = any_line || row.line > 0;
    out.rows.push_back(std::move(row));
  }
  // Each line's text as the file reads now, the one compiled: `lines` shows it after the file changes.
  const auto text_of = query::source_reader();
  for (auto& row : out.rows) row.source = text_of(row.file, row.line);
  if (out.rows.empty()) {
    out.note = "the kernel executed no shared-memory instruction";
  } else if (!any_line) {
    out.status = store::lines_status::no_line_info;
    out.note = "the kernel has no line info: compile it with -lineinfo (source variants get it by default); "
               "instructions are stored by PC";
  }
  return out;
}

store::line_collection collect_lines_of(const config::experiment& e, int seq, std::int64_t run_id, run_plan plan) {
  const auto t0 = std::chrono::steady_clock::now();
  if (auto entry = launch::make_only_visible(plan.device, plan.visible_devices)) { // before any CUDA call
    plan.device_alone = true;
    plan.visible_devices = std::move(entry);
  }
  profile::sass_lines::watch_modules(); // before the modules load
  const auto configs = config::expand(e);
  const auto& cfg = configs.at(static_cast<std::size_t>(seq));
  store::line_collection out;
  try {
    // CUDA alone: no NVML, no buffer pool (the driver's allocator), for a process that runs once.
    if (const cudaError_t err = cudaSetDevice(plan.cuda_ordinal()); err != cudaSuccess)
      throw environment_error(std::string("cannot open the GPU: ") + cudaGetErrorString(err));
    launch::use_allocator(launch::allocator::driver);
    const std::vector<variant_info> sources = source::variants_of(e);
    const variant_info* v = nullptr;
    for (const auto& s : sources)
      if (s.name == cfg.variant) v = &s;
    if (v == nullptr) v = registry::instance().find_variant(e.family, cfg.variant);
    if (v == nullptr) throw usage_error("no variant " + e.family + "/" + cfg.variant);
    auto problem = v->make(cfg.params, e.seed);
    // Kernels the set-up launched (inputs made on the device) came before begin(): only the
    // first kernel launched after it is instrumented, the configuration's own.
    const double setup_ms = ms_since(t0);
    auto collector = profile::sass_lines::begin(plan.cuda_ordinal());
    problem->launch(nullptr);
    const auto records = collector->end();
    const double collected_ms = ms_since(t0);
    std::string disassembly_note;
    const auto opcodes = disassemble(records, disassembly_note);
    out = lines_of(records, opcodes);
    spdlog::debug("lines: set-up {:.0f} ms, instrumented launch {:.0f} ms, disassembly {:.0f} ms", setup_ms,
                  collected_ms - setup_ms, ms_since(t0) - collected_ms);
    std::vector<std::string> notes;
    if (!out.note.empty()) notes.push_back(out.note);
    if (problem->kernels_per_launch() > 1)
      notes.push_back(
          fmt::format("the first of its {} kernels per launch alone is instrumented", problem->kernels_per_launch()));
    if (!disassembly_note.empty() && !out.rows.empty()) notes.push_back(disassembly_note);
    out.note = fmt::format("{}", fmt::join(notes, "; "));
  } catch (const environment_error& x) {
    out = {};
    out.status = store::lines_status::unsupported;
    out.note = x.what();
  } catch (const error& x) {
    out = {};
    out.status = store::lines_status::failed;
    out.note = x.what();
  }
  out.collect_ms = ms_since(t0);
  auto db = store::database::open(plan.db);
  store::add_lines(db, run_id, seq, out);
  return out;
}

} // namespace bb::session
