#pragma once
/// Runs one CTA of a kernel launch from its PTX, thread by thread, and records every
/// shared-memory access each thread makes (docs/bank-model.md, "Predicting from the kernel's code
/// (PTX)"). No CUDA headers.
#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <string>
#include <vector>

#include "runner/model/warp_access.hpp"
#include "runner/ptx/lazy_bytes.hpp"
#include "runner/ptx/parse.hpp"
#include "runner/ptx/program.hpp"

namespace bb::ptx {

/// Global memory as the caller's buffers, each at the address the kernel's pointer arguments
/// hold. A load or store outside every buffer stops the run.
class global_memory {
public:
  global_memory() = default;
  global_memory(const global_memory& o) : m_buffers(o.m_buffers), m_track_writes(o.m_track_writes) {}
  global_memory(global_memory&& o) noexcept : m_buffers(std::move(o.m_buffers)), m_track_writes(o.m_track_writes) {
    o.m_last = nullptr;
  }
  global_memory& operator=(const global_memory& o) {
    m_buffers = o.m_buffers;
    m_track_writes = o.m_track_writes;
    m_last = nullptr;
    return *this;
  }
  global_memory& operator=(global_memory&& o) noexcept {
    m_buffers = std::move(o.m_buffers);
    m_track_writes = o.m_track_writes;
    m_last = o.m_last = nullptr;
    return *this;
  }
  ~global_memory() = default;

  /// Registers `bytes` at [address, address + size); buffers must not overlap.
  void add(std::uint64_t address, const std::vector<std::uint8_t>& bytes) { add(address, lazy_bytes(bytes)); }
  /// As add, the bytes made a page at a time as the run reaches them.
  void add(std::uint64_t address, lazy_bytes bytes);
  /// Every byte of the buffer that starts at `address`, made (throws std::out_of_range if none does).
  std::span<const std::uint8_t> buffer(std::uint64_t address);
  /// As buffer(address), of a buffer whose every page is made (throws std::logic_error otherwise).
  [[nodiscard]] std::span<const std::uint8_t> buffer(std::uint64_t address) const;
  /// The buffer that starts at `address`, its pages made or not (throws std::out_of_range if none does).
  lazy_bytes& contents(std::uint64_t address) { return m_buffers.at(address).bytes; }
  /// The bytes at [address, address + size), or nullptr when they are not inside one buffer.
  std::uint8_t* find(std::uint64_t address, std::size_t size);
  /// As find, and marks the bytes written (stores, atomics, cp.async never: its target is shared).
  std::uint8_t* find_for_write(std::uint64_t address, std::size_t size);
  /// The bytes of the buffer at `buffer_address` that a store or atomic wrote since it was added or
  /// since clear_written(), one bit per byte (byte i: bit i % 64 of word i / 64; written_at reads
  /// it); empty while nothing was written to it (the mask is made on the first write). Throws
  /// std::out_of_range if no buffer starts there.
  [[nodiscard]] const std::vector<std::uint64_t>& written(std::uint64_t buffer_address) const;
  /// Forgets which bytes were written, in every buffer.
  void clear_written();
  /// Whether stores mark the bytes they write (on by default): off where nothing will ask, which
  /// spares a mask of one bit per byte of every buffer written (256 MiB for a 2 GiB output).
  void track_writes(bool on) { m_track_writes = on; }
  /// Moves the buffer at `buffer_address` out, its bytes and its written mask, leaving it empty.
  std::pair<lazy_bytes, std::vector<std::uint64_t>> release(std::uint64_t buffer_address);

private:
  struct buffer_bytes {
    lazy_bytes bytes;
    std::vector<std::uint64_t> written;
  };
  /// The buffer that holds [address, address + size), or null; remembered for the next access.
  buffer_bytes* holding(std::uint64_t address, std::size_t size);
  std::map<std::uint64_t, buffer_bytes> m_buffers;
  buffer_bytes* m_last = nullptr; ///< the buffer of the last access found, at m_last_address
  bool m_track_writes = true;
  std::uint64_t m_last_address = 0;
};

/// Whether byte `i` is set in a written() mask (an empty mask: nothing was written).
inline bool written_at(const std::vector<std::uint64_t>& mask, std::size_t i) {
  return i / 64 < mask.size() && (mask[i / 64] >> (i % 64) & 1u) != 0;
}

/// One launch, of which one CTA is run.
struct launch {
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
  std::array<std::uint32_t, 3> cta{0, 0, 0}; ///< the block to run (%ctaid)
  std::uint32_t dynamic_shared_bytes = 0;
  std::vector<std::uint8_t> params;       ///< the parameter buffer, laid out as entry::params says
  std::uint64_t step_budget = 10'000'000; ///< instructions over all threads of the CTA
};

/// The parameter buffer for `values`, one per parameter of `e` in order, each stored in the
/// parameter's size (little-endian). Throws std::invalid_argument for a count that differs.
std::vector<std::uint8_t> pack_params(const entry& e, const std::vector<std::uint64_t>& values);

/// One shared-memory access of one thread.
struct shared_event {
  std::uint32_t warp = 0;
  std::uint32_t instruction = 0; ///< index into entry::body
  std::uint32_t execution = 0;   ///< the thread's n-th arrival at that instruction (from 0)
  std::uint32_t lane = 0;
  std::uint32_t address = 0; ///< byte offset in the shared window
  int width = 4;             ///< bytes, all elements of a vector access together
  model::access_kind kind = model::access_kind::load;
  std::uint64_t global_address = 0; ///< cp.async (ldgsts): the global address it reads
  bool l1_bypass = false;           ///< cp.async.cg
  /// 0: the request itself; 1 and up: further parts of it (wgmma: its B operand's core matrices),
  /// which add wavefronts but no request.
  std::uint8_t part = 0;
};

struct cta_result {
  std::vector<shared_event> events; ///< in the order the threads made them
  std::uint64_t steps = 0;          ///< instructions run
  std::uint32_t shared_bytes = 0;   ///< the shared window: static variables and the dynamic part
  std::uint64_t global_atomics = 0; ///< atom/red on global memory run (their outputs need every CTA)
};

/// Decodes `e` of module `m` once for run_cta. Never throws for an instruction it cannot run: that
/// fails when a thread reaches it.
program prepare(const module& m, const entry& e);

/// Runs CTA `l.cta` of the prepared entry. Loads of inputs read `global`; stores land there.
/// Throws ptx_error for an instruction it does not support (naming the opcode, the PTX line and
/// the source line), an access outside shared memory or the registered buffers, lanes of a warp
/// that wait at a warp-wide instruction for lanes that never come, or the step budget exceeded.
cta_result run_cta(const program& p, const launch& l, global_memory& global);

/// prepare(m, e), then run_cta of it.
cta_result run_cta(const module& m, const entry& e, const launch& l, global_memory& global);

} // namespace bb::ptx
