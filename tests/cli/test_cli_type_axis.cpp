// A source kernel templated on its element type, swept over types: an argument's `type:` may name
// the axis (`type: T` with `axes: {T: [float, double]}`), so its buffers and scalars follow the
// kernel's template argument at every configuration; a type that is neither is refused by file,
// line and key.
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli_db.hpp"

using bb::test::query_text;
using bb::test::run_cli;

namespace {

// One warp per block stages its elements through shared memory: 4-byte elements are one wavefront a
// warp request, 8-byte ones two.
const char* const k_kernel = R"(template <class T> __global__ void stage(const T* in, T* out, T factor, int n) {
  __shared__ T s[32];
  const int i = blockIdx.x * 32 + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : T(0);
  __syncwarp();
  if (i < n) out[i] = s[threadIdx.x] * factor;
}
)";

std::string experiment(const std::string& type, const std::string& axis) {
  return "name: staged\n"
         "description: one kernel over float and double\n"
         "source:\n"
         "  file: stage.cu\n"
         "  kernel: stage<T>\n"
         "  grid: ceil_div(n, 32)\n"
         "  block: 32\n"
         "  args:\n"
         "    - {buffer: in, type: " +
         type + ", count: n, init: iota}\n" + "    - {buffer: out, type: " + type +
         ", count: n, output: true}\n"
         "    - {scalar: factor, type: " +
         type +
         ", value: 2}\n"
         "    - {scalar: n, type: int32}\n"
         "variants:\n"
         "  - {name: staged}\n"
         "axes:\n"
         "  T: " +
         axis + "\n  n: [1024]\nmetrics: bank_conflicts\n";
}

struct type_axis_files {
  bb::test::temp_dir tmp;
  std::string write(const std::string& type, const std::string& axis) {
    std::ofstream(tmp.path / "stage.cu") << k_kernel;
    const auto yaml = (tmp.path / "stage.yaml").string();
    std::ofstream(yaml) << experiment(type, axis);
    return yaml;
  }
};

TEST(cli_type_axis, buffers_and_scalars_follow_the_type_axis) {
  type_axis_files f;
  const auto yaml = f.write("T", "[float, double]");
  const std::string env = "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" + (f.tmp.path / "cache").string() + "'";
  const auto checked = run_cli("validate '" + yaml + "'", env);
  ASSERT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_NE(checked.out.find("2 configurations"), std::string::npos) << checked.out;

  const auto db = (f.tmp.path / "t.sqlite").string();
  const auto run = run_cli("--db '" + db + "' run --backend model '" + yaml + "'", env);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto per_request = [&](const char* type) {
    return query_text(db, "SELECT m.value FROM metrics m JOIN configurations c ON c.id = m.configuration_id WHERE "
                          "c.params_json LIKE '%\"" +
                              std::string(type) +
                              "\"%' AND m.name = 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum'");
  };
  EXPECT_EQ(per_request("float"), "32.0");  // 32 blocks, one 4-byte warp request each
  EXPECT_EQ(per_request("double"), "64.0"); // 8-byte elements: two wavefronts a request
  EXPECT_EQ(query_text(db, "SELECT count(*) FROM configurations WHERE status IN ('ok', 'unverified')"), "2");
}

// Integer and 16-bit types go into the template arguments as C++ spells them (int32 as int).
TEST(cli_type_axis, integer_types_reach_the_kernel_as_cpp_types) {
  type_axis_files f;
  const auto yaml = f.write("T", "[int32, uint8]");
  const std::string env = "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" + (f.tmp.path / "cache").string() + "'";
  const auto db = (f.tmp.path / "t.sqlite").string();
  const auto run = run_cli("--db '" + db + "' run --backend model '" + yaml + "'", env);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(query_text(db, "SELECT count(*) FROM configurations WHERE status IN ('ok', 'unverified')"), "2");
  // 32 one-byte elements are one wavefront a request, as 32 four-byte ones are.
  EXPECT_EQ(query_text(db, "SELECT group_concat(m.value) FROM metrics m WHERE m.name = "
                           "'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum'"),
            "32.0,32.0");
}

TEST(cli_type_axis, a_type_that_is_neither_is_refused_naming_the_key) {
  type_axis_files f;
  const auto yaml = f.write("flaot", "[float, double]");
  const auto r = run_cli("validate '" + yaml + "'", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find(yaml + ":9:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("source.args[0].type: 'flaot' is neither an element type nor an axis of this experiment"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("did you mean 'float'?"), std::string::npos) << r.err;
}

TEST(cli_type_axis, an_axis_with_a_value_that_is_no_type_is_refused) {
  type_axis_files f;
  const auto yaml = f.write("T", "[float, quad]");
  const auto r = run_cli("validate '" + yaml + "'", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("'T' names the axis T, whose value 'quad' is not an element type"), std::string::npos) << r.err;
}

} // namespace
