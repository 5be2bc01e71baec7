// libFuzzer target for what the results commands accept as run selectors ("12", "run:12",
// "latest", "baseline:NAME", "commit:SHA", a commit prefix) and history's --params filters, over
// a small database of two runs. Each input resolves or ends in a bb::error, never a crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "runner/common/error.hpp"
#include "runner/query/history.hpp"
#include "runner/query/selector.hpp"
#include "runner/store/database.hpp"
#include "runner/store/results.hpp"

namespace {

const bb::store::database& fuzz_database() {
  static const bb::store::database db = [] {
    const auto path = std::filesystem::temp_directory_path() /
                      ("bb-fuzz-selector-" + std::to_string(::getpid()) + ".sqlite");
    std::filesystem::remove(path);
    auto d = bb::store::database::open(path.string());
    bb::store::gpu_record gpu;
    gpu.uuid = "GPU-fuzz";
    gpu.name = "fuzz GPU";
    gpu.cc_major = 9;
    const auto gpu_id = d.upsert_gpu(gpu);
    for (const char* commit : {"abcdef0123456789", "abc0000000000000"}) {
      bb::store::run_record r;
      r.experiment_name = "transpose";
      r.experiment_text = "name: transpose";
      r.git_commit = commit;
      const auto run = d.begin_run(gpu_id, r);
      bb::store::configuration_record c;
      c.variant = "transpose/naive";
      c.family = "transpose";
      c.params_json = R"({"n":1024})";
      d.add_configuration(run, c);
      d.finish_run(run, bb::run_status::completed);
    }
    return d;
  }();
  return db;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  const auto& db = fuzz_database();
  try {
    (void)bb::query::select_side(db, spec, {});
  } catch (const bb::error&) {
  }
  try {
    (void)bb::query::select_run(bb::store::run_infos(db), spec, db.path());
  } catch (const bb::error&) {
  }
  (void)bb::query::runs_at_commit(bb::store::run_infos(db), spec);
  try {
    (void)bb::query::parse_param_filter(spec);
  } catch (const bb::error&) {
  }
  return 0;
}
