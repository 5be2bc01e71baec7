// libFuzzer target for bankmap's inputs: --params NAME=VALUE over every registered variant's
// family and plan, and the hand-drawn tile options (rows, cols, element size, pad, swizzle, row,
// column, stride, lanes). Each input ends in a bankmap or a usage error, never a crash or hang.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runner/common/error.hpp"
#include "runner/model/bankmap.hpp"
#include "runner/model/evaluate.hpp"
#include "runner/model/tile.hpp"
#include "runner/registry/params.hpp"
#include "runner/registry/registry.hpp"

namespace {

struct reader {
  const std::uint8_t* data;
  std::size_t size;
  int small(int mod) { return size == 0 ? 0 : (--size, static_cast<int>(*data++) % mod); }
  int wide() { // mostly small values, now and then anything
    const int a = small(256), b = small(256), c = small(4);
    return c == 0   ? a - 64
           : c == 1 ? a
           : c == 2 ? (a << 8 | b)
                    : static_cast<int>(0x7fffff00u + static_cast<unsigned>(a));
  }
  std::string rest() {
    std::string s(reinterpret_cast<const char*>(data), size);
    size = 0;
    return s;
  }
};

void fuzz_tile(reader& in) {
  bb::model::tile_shape s;
  s.rows = in.wide();
  s.cols = in.wide();
  const int bytes[] = {1, 2, 4, 8, 16, 3, 0, -4};
  s.element_bytes = bytes[in.small(8)];
  s.pad = in.wide();
  s.swizzle = in.wide();
  bb::model::access_pattern p;
  p.kind = static_cast<bb::model::access_pattern::along>(in.small(3));
  p.index = in.wide();
  p.lanes = in.wide();
  try {
    const auto tile = bb::model::make_tile(s);
    const auto access = bb::model::make_access(tile, p);
    (void)bb::model::evaluate(access);
  } catch (const std::invalid_argument&) {
  }
}

void fuzz_params(reader& in) {
  const auto& reg = bb::registry::instance();
  static const std::vector<const bb::variant_info*> variants = [&] {
    std::vector<const bb::variant_info*> all;
    for (const auto* f : reg.families())
      for (const auto* v : reg.variants(f->name)) all.push_back(v);
    return all;
  }();
  if (variants.empty()) return;
  const auto& v = *variants[static_cast<std::size_t>(in.small(256)) % variants.size()];
  std::vector<std::string> given;
  std::string text = in.rest(), item;
  for (const char c : text) {
    if (c == '\n')
      given.push_back(std::exchange(item, {}));
    else
      item += c;
  }
  if (!item.empty()) given.push_back(item);
  try {
    const auto params = bb::params_over_defaults(*reg.find_family(v.family), given);
    if (v.plan) {
      const auto plan = v.plan(params);
      for (const auto& e : plan.entries) (void)bb::model::evaluate(e.access);
    }
  } catch (const bb::usage_error&) {
  } catch (const bb::unsupported_parameter&) {
  } catch (const std::invalid_argument&) {
  } catch (const std::out_of_range&) {
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader in{data, size};
  if (in.small(2) == 0)
    fuzz_tile(in);
  else
    fuzz_params(in);
  return 0;
}
