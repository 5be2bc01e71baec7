// Kernel files as labs write them, with no GPU: standard headers through NVRTC's header layer,
// nvcc where NVRTC cannot, the user's options, the arch-specific target, and a cache key that
// follows every header the kernel reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "runner/common/sha256.hpp"
#include "runner/source/compile.hpp"
#include "runner/source/std_layer.hpp"
#include "runner/source/track.hpp"
#include "source_test_util.hpp"
#include "../data/results/test_helpers.hpp"

namespace {

namespace fs = std::filesystem;
using bb::source::compile;
using bb::source::compile_request;
using bb::source::compiler_choice;
using bb::test::compile_error_of;
using bb::test::k_source_data;
using bb::test::results::temp_folder;

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::trunc) << text;
}

compile_request request(const std::string& file, const std::string& kernel, compiler_choice c,
                        std::vector<std::string> options = {}) {
  compile_request rq{file, kernel, {}, {}, "sm_90"};
  rq.compiler = c;
  rq.options = std::move(options);
  return rq;
}

bool is_cubin(const std::string& s) {
  return s.size() > 4 && s.compare(0, 4,
                                   "\x7f"
                                   "ELF") == 0;
}

TEST(source_compilers, standard_headers_compile_with_nvrtc_unchanged) {
  const auto k = compile(request(k_source_data + "/std_headers.cu", "clamp_sum<float, 4>", compiler_choice::nvrtc), "");
  EXPECT_TRUE(is_cubin(k.cubin));
  EXPECT_EQ(k.lowered_name, "_Z9clamp_sumIfLi4EEvPKT_PS0_m");
  EXPECT_EQ(k.compiler, "nvrtc " + bb::source::nvrtc_version());
  EXPECT_EQ(k.arch, "sm_90");
  EXPECT_TRUE(k.fallback.empty());
  EXPECT_NE(k.options.find("-lineinfo"), std::string::npos) << k.options;
  EXPECT_NE(k.options.find("-std=c++17"), std::string::npos) << k.options;
}

TEST(source_compilers, every_layer_header_compiles) {
  temp_folder dir;
  std::string text;
  for (const auto& h : bb::source::std_layer()) text += "#include <" + h.name + ">\n";
  write(dir.file("all.cu"), text + "__global__ void k(std::uint32_t* p) { p[0] = std::numeric_limits<int>::max(); }\n");
  const auto k = compile(request(dir.file("all.cu"), "k", compiler_choice::nvrtc), "");
  EXPECT_TRUE(is_cubin(k.cubin));
  EXPECT_GE(bb::source::std_layer().size(), 40u);
}

TEST(source_compilers, auto_falls_back_to_nvcc_for_cub_host_code) {
  temp_folder dir;
  const auto k = compile(request(k_source_data + "/cub_block_sum.cu", "block_sum<128>", compiler_choice::automatic),
                         dir.file("cache"));
  EXPECT_TRUE(is_cubin(k.cubin));
  EXPECT_EQ(k.compiler.rfind("nvcc ", 0), 0u) << k.compiler;
  EXPECT_EQ(k.lowered_name, "_Z9block_sumILi128EEvPKiPi");
  EXPECT_EQ(k.fallback, "it has host code, which NVRTC cannot compile");
  // The second time NVRTC is not asked again: its entry sends the lookup to nvcc's.
  const auto again = compile(request(k_source_data + "/cub_block_sum.cu", "block_sum<128>", compiler_choice::automatic),
                             dir.file("cache"));
  EXPECT_TRUE(again.cache_hit);
  EXPECT_EQ(again.cubin, k.cubin);
  EXPECT_EQ(again.fallback, k.fallback);
  EXPECT_EQ(again.compiler, k.compiler);
  EXPECT_EQ(again.options, k.options);
  EXPECT_EQ(again.arch, "sm_90");
}

TEST(source_compilers, nvrtc_alone_says_why_it_cannot) {
  const std::string e = compile_error_of(
      request(k_source_data + "/cub_block_sum.cu", "block_sum<128>", compiler_choice::nvrtc));
  EXPECT_NE(e.find("does not compile for sm_90 with nvrtc"), std::string::npos) << e;
  EXPECT_NE(e.find("not allowed in JIT mode"), std::string::npos) << e;

  const std::string io = compile_error_of(request(k_source_data + "/host_io.cu", "twice", compiler_choice::nvrtc));
  EXPECT_NE(io.find(k_source_data + "/host_io.cu:3: cannot open <iostream>: looked in " + k_source_data + ", "),
            std::string::npos)
      << io;
  EXPECT_NE(io.find("<iostream> is host I/O: NVRTC compiles device code only; use `compiler: nvcc` (or `auto`), or "
                    "remove the include"),
            std::string::npos)
      << io;
}

TEST(source_compilers, auto_compiles_host_io_with_nvcc) {
  const auto k = compile(request(k_source_data + "/host_io.cu", "twice", compiler_choice::automatic), "");
  EXPECT_EQ(k.lowered_name, "_Z5twicePfi");
  EXPECT_EQ(k.fallback, "<iostream> is host I/O, which NVRTC cannot compile");
}

TEST(source_compilers, nvcc_gives_the_same_instance_as_nvrtc) {
  compile_request rq{k_source_data + "/good.cu", "scale<3>", {"OFFSET=1.0f"}, {}, "sm_90"};
  rq.compiler = compiler_choice::nvcc;
  const auto by_nvcc = compile(rq, "");
  rq.compiler = compiler_choice::nvrtc;
  const auto by_nvrtc = compile(rq, "");
  EXPECT_EQ(by_nvcc.lowered_name, by_nvrtc.lowered_name);
  EXPECT_EQ(by_nvcc.lowered_name, "_Z5scaleILi3EEvPKfPfi");
  EXPECT_NE(by_nvcc.key, by_nvrtc.key);
  EXPECT_EQ(by_nvcc.source_hash, by_nvrtc.source_hash);
  EXPECT_EQ(by_nvcc.options.rfind("-arch=sm_90 -lineinfo -std=c++17 -I", 0), 0u) << by_nvcc.options;
}

// The model's compile (`run --backend model`) stops at the PTX: the same PTX as the full compile's,
// no cubin, its own cache entry; a cached full entry serves it, never the other way round.
TEST(source_compilers, ptx_only_is_the_full_compiles_ptx_without_a_cubin) {
  temp_folder dir;
  for (const auto c : {compiler_choice::nvrtc, compiler_choice::nvcc}) {
    SCOPED_TRACE(bb::source::name_of(c));
    const std::string cache = dir.file(std::string(bb::source::name_of(c)) + "_model");
    const std::string filled = dir.file(std::string(bb::source::name_of(c)) + "_filled");
    compile_request model_rq{k_source_data + "/good.cu", "scale<3>", {"OFFSET=1.0f"}, {}, "sm_90"};
    model_rq.compiler = c;
    model_rq.ptx_only = true;
    const auto ptx = compile(model_rq, cache);
    EXPECT_FALSE(ptx.cache_hit);
    EXPECT_TRUE(ptx.cubin.empty());
    EXPECT_NE(ptx.ptx.find(".entry _Z5scaleILi3EEvPKfPfi"), std::string::npos) << ptx.ptx;
    EXPECT_EQ(ptx.arch, "sm_90");
    EXPECT_NE(ptx.options.find(c == compiler_choice::nvcc ? "-arch=sm_90 -ptx " : "--gpu-architecture=compute_90"),
              std::string::npos)
        << ptx.options;
    const auto again = compile(model_rq, cache);
    EXPECT_TRUE(again.cache_hit);
    EXPECT_EQ(again.key, ptx.key);
    EXPECT_TRUE(again.cubin.empty());
    EXPECT_EQ(again.ptx, ptx.ptx);

    compile_request gpu_rq = model_rq;
    gpu_rq.ptx_only = false;
    const auto full = compile(gpu_rq, cache);
    EXPECT_FALSE(full.cache_hit); // a PTX-only entry has no cubin to give
    EXPECT_NE(full.key, ptx.key);
    EXPECT_TRUE(is_cubin(full.cubin));
    EXPECT_EQ(full.ptx, ptx.ptx);
    EXPECT_EQ(full.lowered_name, ptx.lowered_name);

    (void)compile(gpu_rq, filled); // `bankbench compile` filled the cache: the model takes that entry
    const auto from_full = compile(model_rq, filled);
    EXPECT_TRUE(from_full.cache_hit);
    EXPECT_EQ(from_full.key, full.key);
    EXPECT_EQ(from_full.ptx, ptx.ptx);
  }
}

TEST(source_compilers, nvcc_names_a_missing_kernel_like_nvrtc) {
  compile_request rq{k_source_data + "/good.cu", "scael<3>", {"OFFSET=1.0f"}, {}, "sm_90"};
  rq.compiler = compiler_choice::nvcc;
  const std::string e = compile_error_of(rq);
  EXPECT_NE(e.find("there is no __global__ function 'scael' in the file (did you mean 'scale'?)"), std::string::npos)
      << e;
  EXPECT_EQ(e.find("bankbench_kernel.cu"), std::string::npos) << e;
}

TEST(source_compilers, a_missing_header_is_named_with_where_it_was_looked_for) {
  const std::string path = k_source_data + "/missing_header.cu";
  const std::string e = compile_error_of(request(path, "uses_tile", compiler_choice::automatic));
  EXPECT_NE(e.find(path + ":2: cannot open <tile_config.h>: looked in " + k_source_data + ", "), std::string::npos)
      << e;
  EXPECT_NE(e.find("add its folder to `include:` (in `source:` or the variant), or use `compiler: nvcc`"),
            std::string::npos)
      << e;
  const std::string by_nvcc = compile_error_of(request(path, "uses_tile", compiler_choice::nvcc));
  EXPECT_NE(by_nvcc.find(path + ":2: cannot open <tile_config.h>: looked in"), std::string::npos) << by_nvcc;
}

TEST(source_compilers, options_reach_the_compiler_and_the_record) {
  const std::string path = k_source_data + "/cxx20.cu";
  EXPECT_NE(compile_error_of(request(path, "fill_word<int>", compiler_choice::nvrtc)).find("error"), std::string::npos);
  for (const auto c : {compiler_choice::nvrtc, compiler_choice::nvcc}) {
    const auto k = compile(request(path, "fill_word<int>", c, {"-std=c++20", "--use_fast_math"}), "");
    EXPECT_TRUE(is_cubin(k.cubin)) << bb::source::name_of(c);
    EXPECT_NE(k.options.find("-std=c++20 --use_fast_math"), std::string::npos) << k.options;
    EXPECT_EQ(k.options.find("-std=c++17"), std::string::npos) << k.options;
  }
}

TEST(source_compilers, the_arch_specific_target_when_the_kernel_needs_it_or_is_asked) {
  const std::string path = k_source_data + "/needs_sm90a.cu";
  for (const auto c : {compiler_choice::nvrtc, compiler_choice::nvcc}) {
    const auto k = compile(request(path, "fence_only", c), "");
    EXPECT_EQ(k.arch, "sm_90a") << bb::source::name_of(c);
  }
  const auto asked = compile(request(k_source_data + "/cxx20.cu", "fill_word<int>", compiler_choice::nvrtc,
                                     {"-std=c++20", "-arch=sm_90a"}),
                             "");
  EXPECT_EQ(asked.arch, "sm_90a");
  const std::string wrong = compile_error_of(
      request(k_source_data + "/cxx20.cu", "fill_word<int>", compiler_choice::nvrtc, {"-std=c++20", "-arch=sm_80"}));
  EXPECT_NE(wrong.find("options: '-arch=sm_80': the architecture is the GPU's (sm_90)"), std::string::npos) << wrong;
}

// A header two levels down, in an include folder (as CUTLASS's are), changes the key; nothing
// else does; a header created where it shadows the one found changes it too.
TEST(source_compilers, editing_a_deep_header_recompiles_and_nothing_else_does) {
  temp_folder dir;
  write(dir.file("k.cu"), "#include <lib/outer.h>\n__global__ void k(int* p) { p[0] = inner_value(); }\n");
  write(dir.file("inc/lib/outer.h"), "#pragma once\n#include \"detail/inner.h\"\n");
  write(dir.file("inc/lib/detail/inner.h"), "#pragma once\n__device__ int inner_value() { return 1; }\n");
  compile_request rq{dir.file("k.cu"), "k", {}, {dir.file("inc")}, "sm_90"};
  const std::string cache = dir.file("cache");
  const auto first = compile(rq, cache);
  ASSERT_EQ(first.headers.size(), 2u);
  const auto hit = compile(rq, cache);
  EXPECT_TRUE(hit.cache_hit);
  EXPECT_EQ(hit.key, first.key);

  write(dir.file("inc/lib/detail/inner.h"), "#pragma once\n__device__ int inner_value() { return 2; }\n");
  const auto edited = compile(rq, cache);
  EXPECT_FALSE(edited.cache_hit);
  EXPECT_NE(edited.key, first.key);
  EXPECT_NE(edited.cubin, first.cubin);

  write(dir.file("unrelated.h"), "#pragma once\n");
  write(dir.file("inc/lib/unused.h"), "#pragma once\n");
  EXPECT_TRUE(compile(rq, cache).cache_hit);

  // "detail/inner.h" from outer.h's folder first: one created there shadows nothing (it is the
  // same path); one created in the source's folder under lib/ shadows <lib/outer.h>.
  write(dir.file("lib/outer.h"), "#pragma once\n__device__ int inner_value() { return 3; }\n");
  const auto shadowed = compile(rq, cache);
  EXPECT_FALSE(shadowed.cache_hit);
  EXPECT_NE(shadowed.key, edited.key);
}

TEST(source_compilers, the_manifest_answers_when_nothing_changed) {
  temp_folder dir;
  write(dir.file("k.cu"), "#include \"a.h\"\n__global__ void k(int* p) { p[0] = A; }\n");
  write(dir.file("a.h"), "#define A 1\n");
  const std::string manifests = dir.file("cache");
  const auto cold = bb::source::track_source(dir.file("k.cu"), {}, manifests);
  EXPECT_FALSE(cold.from_manifest);
  // Files changed within two seconds of the manifest are not trusted by their times alone.
  const auto young = bb::source::track_source(dir.file("k.cu"), {}, manifests);
  EXPECT_FALSE(young.from_manifest);
  EXPECT_EQ(young.hash, cold.hash);
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::minutes(5);
  fs::last_write_time(dir.file("k.cu"), old_time);
  fs::last_write_time(dir.file("a.h"), old_time);
  (void)bb::source::track_source(dir.file("k.cu"), {}, manifests); // rewrites the manifest
  const auto warm = bb::source::track_source(dir.file("k.cu"), {}, manifests);
  EXPECT_TRUE(warm.from_manifest);
  EXPECT_EQ(warm.hash, cold.hash);
  ASSERT_EQ(warm.headers.size(), 1u);
  EXPECT_EQ(fs::path(warm.headers[0]).filename(), "a.h");

  write(dir.file("a.h"), "#define A 2\n");
  fs::last_write_time(dir.file("a.h"), old_time); // the same time: the size and inode still differ
  const auto edited = bb::source::track_source(dir.file("k.cu"), {}, manifests);
  EXPECT_FALSE(edited.from_manifest);
  EXPECT_NE(edited.hash, cold.hash);
}

TEST(source_compilers, compiles_from_several_threads_at_once) {
  temp_folder dir;
  std::vector<std::thread> threads;
  std::vector<std::string> names(4);
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      compile_request rq{
          k_source_data + "/good.cu", "scale<" + std::to_string(i + 1) + ">", {"OFFSET=1.0f"}, {}, "sm_90"};
      names[i] = compile(rq, dir.file("cache")).lowered_name;
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(names[i], "_Z5scaleILi" + std::to_string(i + 1) + "EEvPKfPfi");
}

} // namespace
