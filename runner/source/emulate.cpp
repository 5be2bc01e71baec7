#include "runner/source/emulate.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "runner/common/atomic_file.hpp"
#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/common/sha256.hpp"
#include "runner/model/evaluate.hpp"
#include "runner/model/rules.hpp"
#include "runner/ptx/alike.hpp"
#include "runner/ptx/fuse.hpp"
#include "runner/ptx/lazy_bytes.hpp"
#include "runner/ptx/parse.hpp"
#include "runner/ptx/run.hpp"
#include "runner/ptx/trace.hpp"
#include "runner/source/compile.hpp"
#include "runner/source/inputs.hpp"
#include "runner/source/known_kernels.hpp"
#include "runner/source/launch_args.hpp"
#include "runner/source/prediction_cache.hpp"
#include "runner/source/variants.hpp"

namespace bb::source {

namespace {

// What an sm_90 block may have (the chip the model's rules describe): a GPU run refuses more.
constexpr std::uint64_t k_max_block_threads = 1024;
constexpr std::uint64_t k_max_block_shared = 232448; // 227 KiB, opted in
// Buffers sit at made-up device addresses, 256-byte aligned with a gap between them, so that an
// access past a buffer's end lands in none and stops the run.
constexpr std::uint64_t k_first_buffer = 0x7f00'0000'0000ull;
constexpr std::uint64_t k_buffer_gap = 1ull << 20;
constexpr std::uint64_t k_max_buffer_bytes = 4ull << 30;
// Blocks run when not every block is: these corners, the middle one and k_spread more spread over
// the grid. A launch whose sampled blocks differ is run whole or not predicted.
constexpr std::uint64_t k_spread = 8;

struct output_buffer {
  std::uint64_t address = 0;
  const config::source_arg* arg = nullptr;
  const element_type* type = nullptr;
};

/// A configuration ready to run: its kernel's PTX parsed, its buffers in host memory.
struct prepared {
  config::source_variant variant; ///< at the configuration: argument types that name an axis resolved
  compiled_kernel kernel;
  ptx::module module;
  const ptx::entry* entry = nullptr; ///< in `module`, whose entries stay where they are when it moves
  ptx::program program;              ///< the entry decoded once, run for every block
  ptx::fusion_plan fusion;           ///< adjacent shared accesses ptxas may fuse (ptx/fuse.hpp)
  ptx::alike_blocks alike;           ///< whether every block makes the same shared requests (ptx/alike.hpp)
  launch_shape shape;
  std::vector<std::uint8_t> params;
  ptx::global_memory global;
  std::vector<output_buffer> outputs;
  /// Everything of the launch an emulation reads: the kernel's PTX (hashed) and entry, the grid,
  /// the block, the shared bytes, the parameter buffer, and per argument its kind, type, size and
  /// initial contents (an init file by the hash of its bytes). Part of the prediction cache's key.
  std::string launch_key;
};

std::string hex_of(const void* data, std::size_t size) {
  static const char* k_digits = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < size; ++i) {
    const auto b = static_cast<const unsigned char*>(data)[i];
    s += k_digits[b >> 4];
    s += k_digits[b & 15];
  }
  return s;
}

std::string bits_of(double v) { return hex_of(&v, sizeof v); }

// A source file as `lines` shows it: under the working folder, relative to it.
std::string shown_source(const std::string& file) { return shown_path(relative_to_working_folder(file)); }

std::string where_of(const config::experiment& exp, const config::source_variant& v) { return exp.name + "/" + v.name; }

compiled_kernel compiled(const config::experiment& exp, const config::source_variant& v, const nlohmann::json& params,
                         const std::string& cache_dir, const emulation_options& o) {
  config::check_source_configuration(exp, v, params);
  compile_request rq = request_of(v, params, o.arch);
  rq.ptx_only = o.ptx_only;
  compiled_kernel k = compile_known(rq, cache_dir);
  if (k.ptx.empty()) throw not_modelled(where_of(exp, v) + ": the compiler kept no PTX of '" + v.kernel + "' to run");
  return k;
}

const ptx::entry& entry_of(const ptx::module& m, const compiled_kernel& k, const std::string& where) {
  try {
    return m.find(k.lowered_name);
  } catch (const std::out_of_range& e) {
    throw not_modelled(where + ": the PTX has no entry " + k.lowered_name + ": " + e.what());
  }
}

std::vector<std::size_t> parameter_sizes(const std::vector<ptx::parameter>& params) {
  std::vector<std::size_t> sizes;
  for (const auto& p : params) sizes.push_back(static_cast<std::size_t>(p.size));
  return sizes;
}

std::vector<std::string> parameter_types(const std::vector<ptx::parameter>& params) {
  std::vector<std::string> types;
  for (const auto& p : params) types.push_back(p.type);
  return types;
}

prepared prepare(const config::experiment& exp, const config::source_variant& variant, const nlohmann::json& params,
                 std::uint64_t seed, const std::string& cache_dir, const emulation_options& o) {
  const std::string where = where_of(exp, variant);
  prepared p;
  p.variant = config::with_types_at(variant, params); // the outputs below point into its arguments
  const config::source_variant& v = p.variant;
  p.kernel = compiled(exp, variant, params, cache_dir, o); // as written: request_of reads its type axes
  try {
    p.module = ptx::parse(p.kernel.ptx);
  } catch (const ptx::ptx_error& e) {
    throw not_modelled(where + ": the kernel's PTX cannot be read: " + e.what());
  }
  p.entry = &entry_of(p.module, p.kernel, where);
  p.program = ptx::prepare(p.module, *p.entry);
  p.fusion = ptx::plan_fusion(*p.entry);
  p.alike = ptx::blocks_alike(p.program);
  check_parameter_sizes(where, v, p.kernel.lowered_name, parameter_sizes(p.entry->params));
  check_parameter_types(where, v, p.kernel.lowered_name, parameter_types(p.entry->params));

  p.shape = shape_of(v, params, where);
  std::string& key = p.launch_key;
  key = "kernel " + p.kernel.lowered_name + " ptx " + sha256_hex(p.kernel.ptx) + "\n";
  for (const auto& [name, d] : {std::pair{"grid", p.shape.grid}, std::pair{"block", p.shape.block}})
    key += std::string(name) + " " + std::to_string(d[0]) + " " + std::to_string(d[1]) + " " + std::to_string(d[2]) +
           "\n";
  key += "shared " + std::to_string(p.shape.shared_bytes) + "\n";
  if (p.shape.threads() > k_max_block_threads)
    throw unsupported_parameter(where + ": a block of " + std::to_string(p.shape.threads()) +
                                " threads; an sm_90 block has at most " + std::to_string(k_max_block_threads));
  if (p.shape.shared_bytes > k_max_block_shared)
    throw unsupported_parameter(where + ": " + std::to_string(p.shape.shared_bytes) +
                                " bytes of dynamic shared memory; an sm_90 block has at most " +
                                std::to_string(k_max_block_shared));

  std::vector<std::uint64_t> values;
  std::vector<std::pair<std::size_t, ptx::tensor_map>> maps; // by argument index
  std::uint64_t address = k_first_buffer, total = 0;
  for (std::size_t i = 0; i < v.args.size(); ++i) {
    const config::source_arg& a = v.args[i];
    if (!a.is_buffer) {
      const auto bytes = scalar_bytes(a, params, where);
      key += "scalar " + a.name + " " + a.type + " " + hex_of(bytes.data(), bytes.size()) + "\n";
      std::uint64_t value = 0;
      std::memcpy(&value, bytes.data(), std::min(bytes.size(), sizeof value));
      values.push_back(value);
      continue;
    }
    const element_type& t = type_named(a.type);
    std::uint64_t bytes = 0;
    const std::size_t count = buffer_count(a, t, params, where, bytes);
    total += bytes;
    if (total > k_max_buffer_bytes)
      throw not_modelled(where + ": its buffers hold more than " + std::to_string(k_max_buffer_bytes >> 30) +
                         " GiB, more than the model keeps in host memory");
    // As a GPU run has them before the verified launch: inputs filled, outputs poisoned (every
    // byte 0xff) unless their init is given (an accumulator starts from it).
    // Each page is made as the run first reaches it: a sampled run of a large grid makes those of
    // its blocks (docs/bank-model.md).
    key += "buffer " + a.name + " " + a.type + " " + std::to_string(bytes) + (a.output ? " output" : " input") +
           " init " + a.init + (a.init_given ? " given" : "") + " value " + bits_of(a.value) + " formula " + a.formula +
           " with " + formula_inputs(a, params) + " seed " + std::to_string(seed) + " index " + std::to_string(i);
    ptx::lazy_bytes::fill_function fill;
    if (a.output && !a.init_given) {
      fill = [](std::size_t, std::size_t n, std::uint8_t* to) { std::memset(to, 0xff, n); };
    } else if (a.init == "file") {
      const auto made = initial_bytes(a, t, count, seed, i, params); // read, and its size checked, now
      key += " file " + a.file + " sha256 " +
             sha256_hex({reinterpret_cast<const char*>(made->front().data()), made->front().size()});
      fill = [made](std::size_t offset, std::size_t n, std::uint8_t* to) {
        std::memcpy(to, made->front().data() + offset, n);
      };
    } else {
      if (a.init == "formula" && count > 0) { // a name that is not an integer parameter: said now, not mid-run
        std::vector<std::uint8_t> first(t.bytes);
        initial_elements(a, t, seed, i, params, 0, 1, first.data());
      }
      fill = [a, type = &t, seed, i, params](std::size_t offset, std::size_t n, std::uint8_t* to) {
        initial_elements(a, *type, seed, i, params, offset / type->bytes, n / type->bytes, to);
      };
    }
    key += "\n";
    p.global.add(address, ptx::lazy_bytes(bytes, std::move(fill)));
    if (a.output) p.outputs.push_back({address, &a, &t});
    if (a.tensor_map) maps.emplace_back(i, tensor_map_of(a, t, params, where, address)); // the params hold its bytes
    values.push_back(address);
    address += (std::max<std::uint64_t>(bytes, 1) + 255) / 256 * 256 + k_buffer_gap;
  }
  p.params = ptx::pack_params(*p.entry, values);
  // Each tensor map's CUtensorMap parameter (128 bytes: checked above), as the interpreter reads one.
  for (const auto& [i, map] : maps) {
    const auto bytes = map.encode();
    std::memcpy(p.params.data() + p.entry->params.at(i).offset, bytes.data(), bytes.size());
  }
  key += "params " + hex_of(p.params.data(), p.params.size()) + "\n";
  return p;
}

std::array<std::uint32_t, 3> block_at(const launch_shape& s, std::uint64_t index) {
  const std::uint64_t x = s.grid[0], y = s.grid[1];
  return {static_cast<std::uint32_t>(index % x), static_cast<std::uint32_t>(index / x % y),
          static_cast<std::uint32_t>(index / (x * y))};
}

std::string block_name(const launch_shape& s, std::uint64_t index) {
  const auto b = block_at(s, index);
  return "(" + std::to_string(b[0]) + ", " + std::to_string(b[1]) + ", " + std::to_string(b[2]) + ")";
}

/// One instruction's requests over the blocks run.
struct instruction_sum {
  std::uint64_t requests = 0, threads = 0, wavefronts = 0, ideal = 0;
  model::access_kind kind = model::access_kind::load;
  int width = 0;
  friend bool operator==(const instruction_sum&, const instruction_sum&) = default;
};

struct block_cost {
  std::vector<instruction_sum> per_instruction; ///< by instruction index
  model::prediction prediction;
  std::uint64_t steps = 0, global_atomics = 0;
};

class launch_runner {
public:
  launch_runner(prepared& p, const std::string& where, std::uint64_t budget)
      : m_p(p), m_where(where), m_budget(budget) {}

  /// Runs block `index` and gives its warp requests, adjacent accesses fused as ptxas fuses them;
  /// `r` gets the run's steps and global atomics (its events are handed on).
  std::vector<ptx::warp_request> requests(std::uint64_t index, ptx::cta_result& r) {
    ptx::launch l;
    l.grid = m_p.shape.grid;
    l.block = m_p.shape.block;
    l.cta = block_at(m_p.shape, index);
    l.dynamic_shared_bytes = static_cast<std::uint32_t>(m_p.shape.shared_bytes);
    l.params = m_p.params;
    l.step_budget = m_budget > m_steps ? m_budget - m_steps : 0;
    try {
      r = ptx::run_cta(m_p.program, l, m_p.global);
      m_steps += r.steps;
      return ptx::warp_requests(ptx::fuse_adjacent(m_p.fusion, std::move(r.events)));
    } catch (const ptx::ptx_error& e) {
      std::string what = e.what();
      for (const auto& [number, file] : m_p.program.files) // the source as the user names it
        for (std::size_t at = 0; (at = what.find(file, at)) != std::string::npos;) {
          const std::string shown = shown_source(file);
          what.replace(at, file.size(), shown);
          at += shown.size();
        }
      if (l.step_budget == 0 || std::string(e.what()).find("budget") != std::string::npos)
        throw not_modelled(m_where + ": block " + block_name(m_p.shape, index) + ": the kernel runs more than the " +
                           "model's budget of " + std::to_string(m_budget) +
                           " thread-instructions (run --model-budget)");
      throw not_modelled(m_where + ": block " + block_name(m_p.shape, index) + ": " + what);
    }
  }

  block_cost run(std::uint64_t index) {
    block_cost c;
    c.per_instruction.resize(m_p.entry->body.size());
    ptx::cta_result r;
    const auto made = requests(index, r);
    c.steps = r.steps;
    c.global_atomics = r.global_atomics;
    try {
      for (const ptx::warp_request& q : made) {
        const model::access_cost cost = model::evaluate(q.access);
        model::add_cost(c.prediction, q.access.kind, 1, cost, q.continues());
        instruction_sum& s = c.per_instruction[q.instruction];
        s.kind = q.access.kind;
        s.width = q.access.width;
        if (!q.continues()) {
          s.requests += 1;
          s.threads += static_cast<std::uint64_t>(std::popcount(q.access.active));
        }
        s.wavefronts += static_cast<std::uint64_t>(cost.wavefronts);
        s.ideal += static_cast<std::uint64_t>(model::instruction_ideal_wavefronts(q.access, cost));
      }
    } catch (const std::invalid_argument& e) { // the model's rules refuse a request (a misaligned lane)
      throw not_modelled(m_where + ": block " + block_name(m_p.shape, index) + ": " + e.what());
    }
    return c;
  }
  [[nodiscard]] std::uint64_t steps() const { return m_steps; }

private:
  prepared& m_p;
  std::string m_where;
  std::uint64_t m_budget, m_steps = 0;
};

void add(block_cost& into, const block_cost& c) {
  for (std::size_t i = 0; i < c.per_instruction.size(); ++i) {
    instruction_sum& s = into.per_instruction[i];
    const instruction_sum& t = c.per_instruction[i];
    if (t.requests == 0) continue;
    s.kind = t.kind;
    s.width = t.width;
    s.requests += t.requests;
    s.threads += t.threads;
    s.wavefronts += t.wavefronts;
    s.ideal += t.ideal;
  }
  for (const auto& [kind, t] : c.prediction.kinds) {
    auto& s = into.prediction.kinds[kind];
    s.requests += t.requests;
    s.wavefronts += t.wavefronts;
    s.ideal_wavefronts += t.ideal_wavefronts;
    s.conflicts += t.conflicts;
  }
  for (auto [s, t] :
       {std::pair{&into.prediction.load, &c.prediction.load}, std::pair{&into.prediction.store, &c.prediction.store}}) {
    s->requests += t->requests;
    s->wavefronts += t->wavefronts;
    s->ideal_wavefronts += t->ideal_wavefronts;
    s->conflicts += t->conflicts;
  }
  into.steps += c.steps;
  into.global_atomics += c.global_atomics;
}

/// The blocks run when not every one is: the grid's corners, the middle one and k_spread more.
std::vector<std::uint64_t> sample_of(const launch_shape& s) {
  const std::uint64_t n = s.blocks();
  std::set<std::uint64_t> picked;
  const std::uint64_t x = s.grid[0], y = s.grid[1], z = s.grid[2];
  for (std::uint64_t cz : {std::uint64_t{0}, z - 1})
    for (std::uint64_t cy : {std::uint64_t{0}, y - 1})
      for (std::uint64_t cx : {std::uint64_t{0}, x - 1}) picked.insert(cx + x * (cy + y * cz));
  picked.insert(n / 2);
  for (std::uint64_t i = 1; i <= k_spread; ++i) picked.insert(i * n / (k_spread + 1));
  return {picked.begin(), picked.end()};
}

/// What running a launch gave: its summed (or scaled) costs and which blocks ran.
struct launch_run {
  block_cost total;
  std::vector<std::uint64_t> blocks; ///< empty: every block
  std::uint64_t factor = 1;          ///< the sums of one block, times this, are the launch's
  bool alike = false;                ///< one block ran: the PTX shows every block makes the same requests
};

/// Runs the launch: every block where the budget allows, else a sample whose blocks must agree.
/// `one_if_alike`: where the PTX shows that every block makes the same shared requests
/// (ptx::blocks_alike), block (0, 0, 0) alone, its counts times the blocks (exact, not a sample);
/// for a run whose outputs are not needed.
launch_run run_launch(prepared& p, const std::string& where, std::uint64_t budget, bool whole_only,
                      bool one_if_alike = false) {
  launch_runner runner(p, where, budget);
  const std::uint64_t n = p.shape.blocks();
  launch_run out;
  block_cost first = runner.run(0);
  if (one_if_alike && n > 1 && p.alike.alike) {
    out.total = std::move(first);
    out.blocks = {0};
    out.factor = n;
    out.alike = true;
    return out;
  }
  const bool whole = n == 1 || first.steps == 0 || first.steps <= budget / n;
  if (whole || whole_only) {
    if (!whole)
      throw not_modelled(where + ": running all " + std::to_string(n) + " blocks takes about " +
                         std::to_string(first.steps * n) + " thread-instructions, more than the model's budget of " +
                         std::to_string(budget) + " (run --model-budget)");
    out.total = std::move(first);
    for (std::uint64_t i = 1; i < n; ++i) add(out.total, runner.run(i));
    return out;
  }
  out.blocks = sample_of(p.shape);
  for (const std::uint64_t b : out.blocks) {
    if (b == 0) continue;
    const block_cost c = runner.run(b);
    first.global_atomics += c.global_atomics;
    if (c.per_instruction != first.per_instruction) {
      const auto wf = [](const block_cost& k) { return k.prediction.load.wavefronts + k.prediction.store.wavefronts; };
      throw not_modelled(where + ": blocks differ (block (0, 0, 0) makes " +
                         std::to_string(first.prediction.load.requests + first.prediction.store.requests) +
                         " load and store requests of " + std::to_string(wf(first)) + " wavefronts, block " +
                         block_name(p.shape, b) + " " +
                         std::to_string(c.prediction.load.requests + c.prediction.store.requests) + " of " +
                         std::to_string(wf(c)) + "), and running all " + std::to_string(n) + " takes about " +
                         std::to_string(first.steps * n) + " thread-instructions, more than the model's budget of " +
                         std::to_string(budget) + " (run --model-budget)");
    }
  }
  first.steps = runner.steps();
  out.total = std::move(first);
  out.factor = n;
  return out;
}

std::string element_text(const unsigned char* p, const element_type& t) {
  std::ostringstream s;
  s << load_number(p, t);
  return s.str();
}

/// Whether `mask` (a ptx::global_memory::written() mask) marks a byte of [from, to).
bool any_written(const std::vector<std::uint64_t>& mask, std::size_t from, std::size_t to) {
  for (std::size_t w = from / 64; w < mask.size() && w * 64 < to; ++w) {
    std::uint64_t bits = mask[w];
    if (w == from / 64) bits &= ~std::uint64_t{0} << (from % 64);
    if ((w + 1) * 64 > to) bits &= ~std::uint64_t{0} >> (64 - to % 64);
    if (bits != 0) return true;
  }
  return false;
}

/// Compares output `o`'s bytes `got` with the expected ones (`want(offset, size)`: bytes
/// [offset, offset + size) of the whole buffer's) over the elements `mask` marks written (every
/// element where `mask` is null). A page at a time: a sample's outputs are made and read only
/// where its blocks wrote.
template <class Want> void compare(verify_result& r, const output_buffer& o, ptx::lazy_bytes& got, const Want& want,
                                   const std::vector<std::uint64_t>* mask, double tolerance) {
  const std::size_t size = o.type->bytes, total = got.size() / size * size;
  for (std::size_t from = 0; from < total; from += ptx::lazy_bytes::k_page) {
    const std::size_t to = std::min(total, from + ptx::lazy_bytes::k_page);
    if (mask != nullptr && !any_written(*mask, from, to)) continue;
    const std::uint8_t* g = got.at(from, to - from);
    const std::uint8_t* w = want(from, to - from);
    for (std::size_t i = from; i < to; i += size) {
      if (mask != nullptr) {
        bool any = false;
        for (std::size_t j = i; j < i + size && !any; ++j) any = ptx::written_at(*mask, j);
        if (!any) continue;
      }
      ++r.checked;
      const std::uint8_t *gi = g + (i - from), *wi = w + (i - from);
      if (std::memcmp(gi, wi, size) == 0 || elements_match(gi, wi, *o.type, tolerance)) continue;
      if (r.mismatches++ == 0)
        r.first_mismatch = o.arg->name + "[" + std::to_string(i / size) + "] = " + element_text(gi, *o.type) +
                           ", expected " + element_text(wi, *o.type);
    }
  }
}

/// The reference variant's outputs, and per output the bytes its blocks wrote.
struct reference_result {
  /// Every byte made where every block ran; those the blocks wrote where a sample ran, which are
  /// the only ones a check of the same sample reads (made() refuses any other).
  std::vector<ptx::lazy_bytes> outputs;
  std::vector<std::vector<std::uint64_t>> written; ///< ptx::global_memory::written() masks
  std::array<std::uint32_t, 3> grid{};             ///< of the launch that made them
  [[nodiscard]] std::size_t bytes() const {
    std::size_t n = 0;
    for (const auto& o : outputs) n += o.size();
    for (const auto& w : written) n += w.size() * sizeof(std::uint64_t);
    return n;
  }
};

/// What a reference's outputs depend on: the experiment, the variant, the configuration, the seed,
/// the options, and the blocks run (empty: all of them).
std::string reference_key(const config::experiment& exp, const std::string& ref, const nlohmann::json& params,
                          std::uint64_t seed, const emulation_options& o, const std::vector<std::uint64_t>& blocks) {
  std::string key = exp.path + "\n" + exp.name + "\n" + ref + "\n" + params.dump() + "\n" + std::to_string(seed) +
                    "\n" + std::to_string(o.budget) + "\n" + o.arch + "\n";
  for (const std::uint64_t b : blocks) key += std::to_string(b) + " ";
  return key;
}

/// The references' outputs made in this process, the least recently used dropped first beyond
/// k_reference_bytes. The variants of an experiment check against one reference at each
/// configuration, and a sweep's order (variant by variant, each over every configuration) asks
/// for several in turn: transpose's naive, padded and swizzled at n = 1024 and 4096 each.
constexpr std::size_t k_reference_bytes = std::size_t{256} << 20;
std::atomic<std::uint64_t> reference_emulations{0};

class reference_store {
public:
  std::shared_ptr<const reference_result> find(const std::string& key) {
    const std::lock_guard lock(m_mutex);
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it)
      if (it->first == key) {
        m_entries.splice(m_entries.begin(), m_entries, it);
        return m_entries.front().second;
      }
    return nullptr;
  }
  void keep(const std::string& key, std::shared_ptr<const reference_result> r) {
    const std::lock_guard lock(m_mutex);
    std::erase_if(m_entries, [&](const auto& e) { return e.first == key; });
    m_entries.emplace_front(key, std::move(r));
    std::size_t held = 0;
    for (auto it = m_entries.begin(); it != m_entries.end();) {
      held += it->second->bytes();
      it = held > k_reference_bytes && it != m_entries.begin() ? m_entries.erase(it) : std::next(it);
    }
  }
  static reference_store& process() {
    static reference_store store;
    return store;
  }

private:
  std::mutex m_mutex;
  std::list<std::pair<std::string, std::shared_ptr<const reference_result>>> m_entries; ///< most recent first
};

/// `p`'s outputs after a run of `blocks` (empty: every block), moved out of its memory.
std::shared_ptr<reference_result> outputs_of(prepared& p, const std::vector<std::uint64_t>& blocks) {
  auto r = std::make_shared<reference_result>();
  r->grid = p.shape.grid;
  for (const auto& b : p.outputs) {
    auto [bytes, written] = p.global.release(b.address);
    if (blocks.empty()) (void)bytes.all(); // a whole run's check reads every byte
    r->outputs.push_back(std::move(bytes));
    r->written.push_back(std::move(written));
  }
  return r;
}

/// The outputs of the reference variant `ref` at the same configuration, from the same blocks
/// (`run.blocks` empty: all of them); null with `why` set when they cannot be had. Those of a
/// reference emulated as a variant of its own are kept too (keep_as_reference below).
std::shared_ptr<const reference_result> reference_outputs(const config::experiment& exp,
                                                          const config::source_variant& ref,
                                                          const nlohmann::json& params, std::uint64_t seed,
                                                          const std::string& cache_dir, const emulation_options& o,
                                                          const launch_run& run, const launch_shape& shape,
                                                          std::string& why) {
  const std::string key = reference_key(exp, ref.name, params, seed, o, run.blocks);
  const auto other_grid = [&] {
    why = "only a sample of the blocks ran, and the reference '" + ref.name + "' has another grid";
  };
  if (auto hit = reference_store::process().find(key)) {
    if (!run.blocks.empty() && hit->grid != shape.grid) {
      other_grid();
      return nullptr;
    }
    return hit;
  }
  const std::string where = where_of(exp, ref);
  reference_emulations.fetch_add(1);
  try {
    prepared p = prepare(exp, ref, params, seed, cache_dir, o);
    if (!run.blocks.empty() && p.shape.grid != shape.grid) {
      other_grid();
      return nullptr;
    }
    if (run.blocks.empty()) {
      (void)run_launch(p, where, o.budget, true);
    } else {
      launch_runner runner(p, where, o.budget);
      for (const std::uint64_t b : run.blocks) (void)runner.run(b);
    }
    std::shared_ptr<const reference_result> r = outputs_of(p, run.blocks);
    reference_store::process().keep(key, r);
    return r;
  } catch (const std::exception& e) {
    why = "the reference '" + ref.name + "' was not emulated: " + e.what();
    return nullptr;
  }
}

/// Keeps the outputs of variant `v`, just run as `run`, where another variant of `exp` checks
/// against it: reference_outputs would run the same blocks in the same order on the same inputs,
/// so it finds them instead. Leaves `p`'s output buffers empty.
/// Whether another variant of `exp` checks its outputs against variant `v`'s.
bool is_a_reference(const config::experiment& exp, const config::source_variant& v) {
  return exp.find_source(v.name) == &v &&
         std::any_of(exp.sources.begin(), exp.sources.end(),
                     [&](const config::source_variant& s) { return s.check && s.check->reference == v.name; });
}

void keep_as_reference(const config::experiment& exp, const config::source_variant& v, const nlohmann::json& params,
                       std::uint64_t seed, const emulation_options& o, prepared& p, const launch_run& run) {
  if (!o.check || !is_a_reference(exp, v)) return;
  reference_store::process().keep(reference_key(exp, v.name, params, seed, o, run.blocks), outputs_of(p, run.blocks));
}

void check_outputs(emulation& out, const config::experiment& exp, const config::source_variant& v,
                   const nlohmann::json& params, std::uint64_t seed, const std::string& cache_dir,
                   const emulation_options& o, prepared& p, const launch_run& run) {
  if (!v.check) {
    out.unchecked = "the variant has no check";
    return;
  }
  if (!o.check) {
    out.unchecked = "not asked for";
    return;
  }
  const bool sampled = !run.blocks.empty();
  if (sampled && run.total.global_atomics > 0) {
    out.unchecked = "only " + std::to_string(run.blocks.size()) + " of " + std::to_string(p.shape.blocks()) +
                    " blocks ran, and the kernel writes global memory with atomics, so its outputs need every block";
    return;
  }
  std::shared_ptr<const reference_result> reference;
  std::vector<std::uint8_t> file_bytes;
  if (!v.check->reference.empty()) {
    const config::source_variant* ref = exp.find_source(v.check->reference);
    if (ref == nullptr) throw error(exit_code::usage, "no reference variant '" + v.check->reference + "'");
    reference = reference_outputs(exp, *ref, params, seed, cache_dir, o, run, p.shape, out.unchecked);
    if (!reference) return;
    if (reference->outputs.size() != p.outputs.size())
      throw error(exit_code::usage, "reference variant '" + ref->name + "' has " +
                                        std::to_string(reference->outputs.size()) + " output buffer(s), '" + v.name +
                                        "' " + std::to_string(p.outputs.size()));
  } else {
    std::string bytes;
    if (!read_whole_file(v.check->file, bytes))
      throw error(exit_code::usage, "cannot read the check file " + shown_path(v.check->file));
    file_bytes.assign(bytes.begin(), bytes.end());
  }
  const auto want_size = [&](std::size_t i) { return reference ? reference->outputs[i].size() : file_bytes.size(); };
  for (std::size_t i = 0; i < p.outputs.size(); ++i) {
    const std::size_t got = p.global.contents(p.outputs[i].address).size();
    if (want_size(i) != got)
      throw error(exit_code::usage, "output '" + p.outputs[i].arg->name + "' of '" + v.name + "' holds " +
                                        std::to_string(got) + " bytes, its expected outputs " +
                                        std::to_string(want_size(i)));
  }
  verify_result r;
  for (std::size_t i = 0; i < p.outputs.size(); ++i) {
    const output_buffer& b = p.outputs[i];
    const std::vector<std::uint64_t>* mask = sampled ? &p.global.written(b.address) : nullptr;
    if (sampled && reference) {
      const auto& theirs = reference->written[i];
      for (std::size_t w = 0; w < mask->size(); ++w) {
        const std::uint64_t missing = (*mask)[w] & ~(w < theirs.size() ? theirs[w] : 0);
        if (missing == 0) continue;
        const std::size_t j = w * 64 + static_cast<std::size_t>(std::countr_zero(missing));
        out.unchecked = "only a sample of the blocks ran, and the reference's same blocks did not write " +
                        b.arg->name + "[" + std::to_string(j / b.type->bytes) + "], which this variant's did";
        return;
      }
    }
    const auto want = [&](std::size_t offset, std::size_t size) {
      return reference ? reference->outputs[i].made(offset, size) : file_bytes.data() + offset;
    };
    compare(r, b, p.global.contents(b.address), want, mask, v.check->tolerance);
  }
  r.ok = r.mismatches == 0;
  out.verify = r;
  out.checked = true;
}

store::line_collection lines_of(const prepared& p, const launch_run& run) {
  store::line_collection c;
  c.kernel = p.kernel.lowered_name;
  bool any_line = false;
  for (std::size_t i = 0; i < run.total.per_instruction.size(); ++i) {
    const instruction_sum& s = run.total.per_instruction[i];
    if (s.requests == 0) continue;
    const ptx::instruction& in = p.entry->body[i];
    store::line_row row;
    row.function = p.kernel.lowered_name;
    row.pc = static_cast<std::uint32_t>(in.ptx_line);
    if (const auto f = p.module.files.find(in.file); f != p.module.files.end() && in.line > 0) {
      row.file = f->second;
      row.line = in.line;
      any_line = true;
    }
    row.opcode = in.opcode;
    row.kind = s.kind == model::access_kind::atom ? "atoms" : model::kind_name(s.kind);
    row.executions = s.requests * run.factor;
    row.threads = s.threads * run.factor;
    row.wavefronts = s.wavefronts * run.factor;
    row.ideal = s.ideal * run.factor;
    c.rows.push_back(std::move(row));
  }
  if (c.rows.empty()) {
    c.status = store::lines_status::no_records;
    c.note = "the kernel made no shared-memory request";
  } else if (!any_line) {
    c.status = store::lines_status::no_line_info;
    c.note = "the PTX has no line info (.loc)";
  }
  return c;
}

#ifdef NDEBUG
constexpr const char* k_build_kind = "release";
#else
constexpr const char* k_build_kind = "debug";
#endif

// The C library's maths (sin, exp2, ... of the interpreter's float instructions) by its version.
std::string c_library() {
#ifdef __GLIBC__
  return std::string("glibc ") + gnu_get_libc_version();
#else
  return "unknown C library";
#endif
}

/// The prediction cache's key of variant `v` at `params`, prepared as `p`: what built the
/// emulation, the options, the working folder (messages show paths relative to it), the
/// configuration, the launch, and the check with what it reads (the reference's launch, or the
/// check file's bytes by their hash). Empty where it cannot be made (a reference that cannot be
/// prepared, a check file that cannot be read): that configuration is emulated, not cached.
std::string prediction_key(const config::experiment& exp, const config::source_variant& v, const nlohmann::json& params,
                           std::uint64_t seed, const std::string& cache_dir, const emulation_options& o,
                           const prepared& p) {
  std::error_code ec;
  const auto cwd = std::filesystem::current_path(ec);
  if (ec) return {};
  std::string key = "bankbench model prediction\nversion " + o.cache_version + "\nhost compiler " + __VERSION__ + " " +
                    k_build_kind + "\n" + c_library() + "\nrules v" + std::to_string(model::k_rules_version) +
                    "\narch " + o.arch + "\nbudget " + std::to_string(o.budget) + "\ncheck " +
                    (o.check ? "yes" : "no") + "\nworking folder " + cwd.string() + "\nexperiment " + exp.name +
                    "\nvariant " + v.name + "\nparams " + params.dump() + "\nseed " + std::to_string(seed) +
                    "\nsmem access bytes " + std::to_string(v.smem_access_bytes) + "\n" + p.launch_key;
  if (!v.check) return key + "check none\n";
  key += "tolerance " + bits_of(v.check->tolerance) + "\n";
  if (v.check->reference.empty()) {
    std::string bytes;
    if (!read_whole_file(v.check->file, bytes)) return {};
    return key + "check file " + v.check->file + " sha256 " + sha256_hex(bytes) + "\n";
  }
  const config::source_variant* ref = exp.find_source(v.check->reference);
  if (ref == nullptr) return {};
  try {
    const prepared r = prepare(exp, *ref, params, seed, cache_dir, o);
    return key + "check reference " + ref->name + "\n" + r.launch_key;
  } catch (const std::exception&) {
    return {};
  }
}

} // namespace

emulation emulate(const config::experiment& exp, const config::source_variant& v, const nlohmann::json& params,
                  std::uint64_t seed, const std::string& cache_dir, const emulation_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string where = where_of(exp, v);
  prepared p = prepare(exp, v, params, seed, cache_dir, o);
  const auto compiled_as = [&](emulation& e) {
    e.compile_key = p.kernel.key;
    e.compiler = p.kernel.compiler;
    e.compile_options = p.kernel.options;
    e.compile_ms = p.kernel.compile_ms;
  };
  const std::string key = o.cache_version.empty() || cache_dir.empty()
                              ? ""
                              : prediction_key(exp, v, params, seed, cache_dir, o, p);
  if (!key.empty())
    if (auto hit = read_prediction(cache_dir, key)) {
      compiled_as(*hit);
      hit->lines.collect_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      return std::move(*hit);
    }
  // The outputs are needed where they are checked, or kept for a variant that checks against them.
  const bool outputs_needed = o.check && (v.check.has_value() || is_a_reference(exp, v));
  p.global.track_writes(outputs_needed); // the written bytes matter only to a check of a sample's outputs
  const launch_run run = run_launch(p, where, o.budget, false, !outputs_needed);
  emulation out;
  out.prediction = run.total.prediction;
  model::scale(out.prediction, run.factor);
  out.blocks = p.shape.blocks();
  out.blocks_run = run.blocks.empty() ? out.blocks : run.blocks.size();
  out.blocks_alike = run.alike;
  out.smem_access_bytes = v.smem_access_bytes;
  compiled_as(out);
  out.lines = lines_of(p, run);
  check_outputs(out, exp, v, params, seed, cache_dir, o, p, run);
  keep_as_reference(exp, v, params, seed, o, p, run);
  if (!key.empty()) write_prediction(cache_dir, key, out);
  out.lines.collect_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::vector<block_request> block_requests(const config::experiment& exp, const config::source_variant& v,
                                          const nlohmann::json& params, std::uint64_t seed,
                                          const std::string& cache_dir, const emulation_options& o) {
  const std::string where = where_of(exp, v);
  prepared p = prepare(exp, v, params, seed, cache_dir, o);
  launch_runner runner(p, where, o.budget);
  ptx::cta_result r;
  std::vector<block_request> out;
  for (const ptx::warp_request& q : runner.requests(0, r)) {
    const auto same = std::find_if(out.begin(), out.end(),
                                   [&](const block_request& b) { return b.access == q.access; });
    if (same != out.end()) {
      ++same->count;
      continue;
    }
    const ptx::instruction& in = p.entry->body[q.instruction];
    std::string at;
    if (const auto f = p.module.files.find(in.file); f != p.module.files.end() && in.line > 0)
      at = shown_source(f->second) + ":" + std::to_string(in.line) + " ";
    out.push_back({q.access, 1, at + in.opcode + (q.continues() ? " (continuing the request before)" : "")});
  }
  return out;
}

std::uint64_t references_emulated() { return reference_emulations.load(); }

namespace {
// The entry's parameters as its PTX declares them, read once per kernel and process: validate asks
// for sizes and types, and a GPU run for types at every configuration (a CuTe kernel's PTX is
// large). nullopt where the PTX cannot be read (what the model cannot read, a GPU run checks).
std::optional<std::vector<ptx::parameter>> ptx_parameters(const compiled_kernel& k) {
  static std::mutex lock;
  static std::map<std::string, std::optional<std::vector<ptx::parameter>>> known;
  const std::string key = k.key + "\n" + k.lowered_name;
  const std::lock_guard<std::mutex> hold(lock);
  if (const auto it = known.find(key); it != known.end() && !k.key.empty()) return it->second;
  std::optional<std::vector<ptx::parameter>> params;
  try {
    const ptx::module m = ptx::parse(k.ptx);
    params = m.find(k.lowered_name).params;
  } catch (const std::exception&) {
  }
  if (!k.key.empty()) known.emplace(key, params);
  return params;
}
} // namespace

std::optional<std::vector<std::size_t>> ptx_parameter_sizes(const compiled_kernel& k) {
  const auto params = ptx_parameters(k);
  if (!params) return std::nullopt;
  return parameter_sizes(*params);
}

std::optional<std::vector<std::string>> ptx_parameter_types(const compiled_kernel& k) {
  const auto params = ptx_parameters(k);
  if (!params) return std::nullopt;
  return parameter_types(*params);
}

} // namespace bb::source
