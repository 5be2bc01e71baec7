#pragma once
/// `bankbench bankmap --svg`: one warp request on its tile as an SVG picture.
#include <ostream>

#include "runner/model/bankmap.hpp"

namespace bb::render {

/// The tile as a grid coloured by bank (padding greyed), the lanes' elements outlined and
/// numbered, the distinct words per bank under it and the verdict as the caption.
void write_bankmap_svg(const model::bankmap& m, std::ostream& out);

} // namespace bb::render
