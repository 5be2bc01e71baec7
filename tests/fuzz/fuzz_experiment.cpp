// libFuzzer target: any bytes given as an experiment file must end in a loaded experiment or a
// config_error, never a crash, a hang or a sanitizer report. Built with -DBB_FUZZ=ON (clang).
#include <cstddef>
#include <cstdint>
#include <string>

#include "runner/common/error.hpp"
#include "runner/config/experiment.hpp"

namespace {

const bb::registry& fuzz_registry() {
  static const bb::registry reg = [] {
    bb::registry r;
    r.add_family({"transpose", "fuzz family", {{"n", 1024, "size"}, {"type", "float", "element"}}});
    for (const char* v : {"naive", "padded", "swizzled"}) r.add_variant({"transpose", v, "", nullptr});
    return r;
  }();
  return reg;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto e = bb::config::load_experiment_text(text, "fuzz.yaml", fuzz_registry());
    (void)bb::config::expand(e);
  } catch (const bb::config_error&) {
  }
  return 0;
}
