#pragma once
/// `bankbench bankmap`: one warp request on its tile, as a table (render/bankmap_svg.hpp draws it).
#include <optional>
#include <ostream>
#include <string>

#include "runner/model/access_plan.hpp"
#include "runner/model/evaluate.hpp"

namespace bb::model {

struct bankmap {
  std::string title;               ///< e.g. "column 0 of float tile[32][33]"
  std::optional<tile_layout> tile; ///< the grid to draw; without one only the banks are shown
  warp_access access;
};

/// "32-way bank conflict: 32 wavefronts, ideal 1" or "conflict-free: 1 wavefront, ideal 1".
std::string verdict(const access_cost& c);

/// Every active lane with its element, byte address and bank; per phase, the lanes and distinct
/// words per bank; the verdict.
void write_text(const bankmap& m, std::ostream& out);

/// The bank(s) one lane's access covers: "5", or "4-5" for 8 B and "4-7" for 16 B.
std::string bank_label(std::uint32_t address, int width);

} // namespace bb::model
