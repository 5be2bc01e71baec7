#pragma once
/// A variant's shared-memory requests for one configuration, as counted warp requests. C++17 and
/// no CUDA headers: kernels build their plans from the same __host__ __device__ index functions
/// their kernels use, in .cu files that nvcc compiles as C++17.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runner/model/warp_access.hpp"

namespace bb::model {

/// One distinct warp request and how many times one launch issues it. An instruction that reads
/// more than 32 lanes of 16 bytes (a wgmma reads 32 core matrices) is one entry plus entries marked
/// `continues`, which add their wavefronts (and ideal wavefronts) but no request.
struct plan_entry {
  std::uint64_t count = 0;
  warp_access access;
  bool continues = false; ///< part of another entry's request: wavefronts, no request of its own
};

/// Where each element of a variant's logical tile lives, for bankmap's pictures.
struct tile_layout {
  std::string name; ///< e.g. "float tile[32][33]"
  int rows = 0, cols = 0;
  int element_bytes = 4;
  int row_pitch_elements = 0;         ///< elements from one row's start to the next's (cols + padding)
  std::vector<std::uint32_t> address; ///< byte address of logical element (r, c) at r * cols + c
};

/// A rows x cols tile whose element (r, c) sits offset(r, c) elements in, with rows `pitch`
/// elements apart; named "<declared>[rows][pitch]", e.g. make_tile_layout("float tile", ...).
template <class Offset> tile_layout make_tile_layout(const std::string& declared, int rows, int cols, int element_bytes,
                                                     int pitch, Offset offset) {
  tile_layout t;
  t.name = declared + "[" + std::to_string(rows) + "][" + std::to_string(pitch) + "]";
  t.rows = rows;
  t.cols = cols;
  t.element_bytes = element_bytes;
  t.row_pitch_elements = pitch;
  t.address.reserve(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      t.address.push_back(static_cast<std::uint32_t>(offset(r, c)) * static_cast<std::uint32_t>(element_bytes));
  return t;
}

/// Every shared-memory request of one launch. A plan lists each distinct request once with its
/// count, so large problems need no enumeration of every warp.
struct access_plan {
  int access_bytes = 4; ///< width of the variant's accesses; stored as smem_access_bytes
  std::vector<plan_entry> entries;
  std::optional<tile_layout> tile;

  /// Adds `count` issues of `a`; a request whose lanes are all inactive is not issued (rule 4).
  /// `continues`: `a` is a further part of an instruction added on its own (see plan_entry).
  void add(std::uint64_t count, const warp_access& a, bool continues = false) {
    if (count == 0 || a.active == 0) return;
    for (auto& e : entries)
      if (e.access == a && e.continues == continues) {
        e.count += count;
        return;
      }
    entries.push_back({count, a, continues});
  }
};

} // namespace bb::model
