// Which launches `attach` profiles: names, NVTX ranges, skip and count; and the settings and lines
// bankbench and the injected library exchange.
#include <sys/socket.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runner/attach/attach_run.hpp"
#include "runner/attach/filter.hpp"
#include "runner/attach/protocol.hpp"
#include "runner/common/error.hpp"

namespace {

using bb::attach::base_name;
using bb::attach::demangle;

TEST(attach_names, base_name_drops_parameters_and_return_type) {
  // nvcc's symbols for experiments/source/transpose.cu and a plain C kernel.
  EXPECT_EQ(demangle("_Z9transposeI5naiveLi32ELi8EEvPKfPfi"),
            "void transpose<naive, 32, 8>(float const*, float*, int)");
  EXPECT_EQ(base_name(demangle("_Z9transposeI5naiveLi32ELi8EEvPKfPfi")), "transpose<naive, 32, 8>");
  EXPECT_EQ(base_name(demangle("_Z4bumpPii")), "bump");
  EXPECT_EQ(base_name("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
  EXPECT_EQ(demangle("tile_transpose"), "tile_transpose");
  EXPECT_EQ(
      base_name(
          "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<Op>(at::TensorIteratorBase&, Op const&)::{lambda(int)#1}>(int, Op)"),
      "at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<Op>(at::TensorIteratorBase&, Op const&)::{lambda(int)#1}>");
}

TEST(attach_names, function_name_as_nsight_compute_shows_it) {
  using bb::attach::function_name;
  EXPECT_EQ(function_name("at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
                          "float, float, float>, unsigned int, float, 4, 4> >"),
            "reduce_kernel");
  EXPECT_EQ(function_name("(anonymous namespace)::bump"), "bump");
  EXPECT_EQ(function_name("transpose<naive, 32, 8>"), "transpose");
  EXPECT_EQ(function_name("nvjet_sm90_hsh_128x128_64x6_2x1_v_bz_NNT"), "nvjet_sm90_hsh_128x128_64x6_2x1_v_bz_NNT");
}

TEST(attach_names, kernel_filter_searches_the_base_name) {
  const bb::attach::kernel_filter all("");
  EXPECT_TRUE(all.matches("anything"));
  const bb::attach::kernel_filter some("transpose<naive");
  EXPECT_TRUE(some.matches("transpose<naive, 32, 8>"));
  EXPECT_FALSE(some.matches("transpose<padded, 32, 8>"));
  const bb::attach::kernel_filter anchored("^bump$");
  EXPECT_TRUE(anchored.matches("bump"));
  EXPECT_TRUE(anchored.matches("(anonymous namespace)::bump")); // by the function's own name
  EXPECT_FALSE(anchored.matches("bump2"));
  const bb::attach::kernel_filter scoped("^at::native::reduce");
  EXPECT_TRUE(scoped.matches("at::native::reduce_kernel<512, 1>"));
  EXPECT_FALSE(scoped.matches("reduce_kernel<512, 1>"));
  try {
    bb::attach::kernel_filter bad("tile[");
    FAIL() << "accepted";
  } catch (const bb::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("--kernel-name 'tile['"), std::string::npos) << e.what();
  }
}

TEST(attach_nvtx, rules_and_open_ranges) {
  using bb::attach::nvtx_rule;
  const auto plain = nvtx_rule::parse("forward");
  EXPECT_EQ(plain.domain, "");
  EXPECT_EQ(plain.range, "forward");
  const auto scoped = nvtx_rule::parse("mylib@step*");
  EXPECT_EQ(scoped.domain, "mylib");
  EXPECT_EQ(scoped.range, "step*");
  EXPECT_THROW(nvtx_rule::parse("@x"), bb::usage_error);
  EXPECT_THROW(nvtx_rule::parse("dom@"), bb::usage_error);

  bb::attach::nvtx_ranges open;
  const std::vector<nvtx_rule> rules{nvtx_rule::parse("second*")};
  EXPECT_TRUE(open.selected(1, {}));
  EXPECT_FALSE(open.selected(1, rules));
  open.push(1, "", "outer");
  open.push(1, "", "second pass");
  EXPECT_TRUE(open.selected(1, rules));
  EXPECT_FALSE(open.selected(2, rules)); // push/pop ranges belong to their thread
  open.pop(1, "");
  EXPECT_FALSE(open.selected(1, rules));
  open.start(77, "", "second epoch"); // start/end ranges belong to the process
  EXPECT_TRUE(open.selected(2, rules));
  open.end(77);
  EXPECT_FALSE(open.selected(2, rules));
  // A domain's pop closes that domain's innermost range only.
  open.push(3, "mylib", "step 1");
  open.push(3, "", "second");
  open.pop(3, "mylib");
  EXPECT_TRUE(open.selected(3, rules));
  EXPECT_FALSE(open.selected(3, {nvtx_rule::parse("mylib@step*")}));
}

TEST(attach_quota, skip_then_count_over_every_question) {
  bb::attach::launch_quota q(2, 3);
  std::vector<int> got;
  bool more = true;
  for (int i = 0; i < 7; ++i) {
    const auto a = q.ask();
    got.push_back(a.profile ? 1 : 0);
    if (i == 4) more = a.more;
  }
  EXPECT_EQ(got, (std::vector<int>{0, 0, 1, 1, 1, 0, 0}));
  EXPECT_FALSE(more);
  EXPECT_EQ(q.granted(), 3u);
  bb::attach::launch_quota unlimited(0, 0);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(unlimited.ask().more);
}

TEST(attach_protocol, settings_round_trip_and_refusal) {
  bb::attach::settings s;
  s.metrics = {"a.sum", "b.sum"};
  s.kernel_regex = "^t";
  s.nvtx_include = {"x"};
  s.application_only = true;
  s.flush_l2 = false;
  const auto back = bb::attach::settings::from_json(s.to_json());
  EXPECT_EQ(back.metrics, s.metrics);
  EXPECT_EQ(back.kernel_regex, "^t");
  EXPECT_EQ(back.nvtx_include, s.nvtx_include);
  EXPECT_TRUE(back.application_only);
  EXPECT_FALSE(back.flush_l2);
  EXPECT_THROW(bb::attach::settings::from_json("{}"), bb::usage_error);
  EXPECT_THROW(bb::attach::settings::from_json("not json"), bb::usage_error);
}

TEST(attach_protocol, lines_cross_a_socket_whole) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  bb::attach::channel a(fds[0]), b(fds[1]);
  ASSERT_TRUE(a.send({{"type", "ask"}, {"kernel", "k"}, {"ordinal", 3}}));
  ASSERT_TRUE(a.send({{"type", "summary"}, {"graph_launches", 1}}));
  const auto first = b.receive();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ((*first)["ordinal"], 3);
  const auto second = b.receive();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ((*second)["type"], "summary");
}

TEST(attach_names, default_name_and_params) {
  using bb::attach::default_name;
  EXPECT_EQ(default_name({"python3", "-u", "train.py", "--epochs", "2"}), "train.py");
  EXPECT_EQ(default_name({"/usr/bin/python3", "-m", "mypkg.bench"}), "mypkg.bench");
  EXPECT_EQ(default_name({"./build/gemm", "--m", "4096"}), "gemm");
  EXPECT_EQ(default_name({"torchrun", "--nproc-per-node", "2", "train.py"}), "train.py");
  EXPECT_EQ(bb::attach::params_of({32, 32, 1}, {32, 8, 1}, 0, 1, 0, ""),
            R"({"block":"32x8x1","grid":"32x32x1","launch":1,"smem":0})");
  EXPECT_EQ(bb::attach::params_of({132, 1, 1}, {384, 1, 1}, 232448, 3, 0, "", {2, 1, 1}),
            R"({"block":"384x1x1","cluster":"2x1x1","grid":"132x1x1","launch":3,"smem":232448})");
  EXPECT_EQ(bb::attach::params_of({1, 1, 1}, {128, 1, 1}, 4096, 0, 1, "rank 1"),
            R"({"block":"128x1x1","device":1,"grid":"1x1x1","launch":0,"process":"rank 1","smem":4096})");
}

} // namespace
