#include <gtest/gtest.h>

#include <algorithm>

#include "runner/ptx/parse.hpp"
#include "tests/unit/ptx_test_util.hpp"

namespace bb::ptx {
namespace {

TEST(PtxParse, TransposeEntriesParametersAndShared) {
  const module m = parse(test::read_fixture("transpose.ptx"));
  ASSERT_EQ(m.entries.size(), 2u);
  const entry& naive = m.find(test::k_naive);
  ASSERT_EQ(naive.params.size(), 3u);
  EXPECT_EQ(naive.params[0].type, "u64");
  EXPECT_EQ(naive.params[1].offset, 8);
  EXPECT_EQ(naive.params[2].type, "u32");
  EXPECT_EQ(naive.params[2].offset, 16);
  EXPECT_EQ(naive.param_bytes(), 20);
  ASSERT_EQ(naive.shared.size(), 1u);
  EXPECT_EQ(naive.shared[0].size, 32 * 32 * 4);
  EXPECT_EQ(naive.shared[0].align, 4);
  EXPECT_EQ(m.find(test::k_padded).shared[0].size, 32 * 33 * 4);
  EXPECT_EQ(naive.body.size(), 137u); // the lines of the entry that end in ';' and are no directive
  ASSERT_EQ(naive.registers.size(), 4u);
  EXPECT_EQ(naive.registers[2].name, "%r");
  EXPECT_EQ(naive.registers[2].count, 55);
  EXPECT_EQ(naive.labels.size(), 8u);
  EXPECT_THROW((void)m.find("transpose"), std::out_of_range);
}

// nvcc declares an entry whose address a module variable takes (`.entry name(...);`) before the
// module's `.extern .shared` array and defines it after: the declaration is no entry, and the array
// is the module's.
TEST(PtxParse, ADeclaredEntryKeepsTheSharedArrayAfterIt) {
  const module m = parse(test::read_fixture("forward_declared.ptx"));
  ASSERT_EQ(m.entries.size(), 1u);
  EXPECT_EQ(m.entries[0].name, "_Z16forward_declaredPKfPf");
  EXPECT_FALSE(m.entries[0].body.empty());
  ASSERT_EQ(m.shared.size(), 1u);
  EXPECT_EQ(m.shared[0].name, "forward_smem");
  EXPECT_TRUE(m.shared[0].dynamic);
  EXPECT_EQ(m.shared[0].align, 16);
}

TEST(PtxParse, InstructionsCarryTheirSourceLines) {
  const module m = parse(test::read_fixture("transpose.ptx"));
  ASSERT_EQ(m.files.count(1), 1u);
  EXPECT_TRUE(m.files.at(1).ends_with("experiments/source/transpose.cu")) << m.files.at(1);
  const entry& naive = m.find(test::k_naive);
  int stores = 0, loads = 0;
  for (const instruction& in : naive.body) {
    if (in.opcode == "st.shared.f32") {
      ++stores;
      EXPECT_EQ(in.line, 30) << "PTX line " << in.ptx_line; // tile[...] = in[...]
      EXPECT_EQ(in.operands[0].kind, operand_kind::memory);
    }
    if (in.opcode == "ld.shared.f32") {
      ++loads;
      EXPECT_EQ(in.line, 38) << "PTX line " << in.ptx_line; // out[...] = tile[...]
    }
    if (in.opcode == "bar.sync") {
      EXPECT_EQ(in.line, 31);
    }
  }
  EXPECT_EQ(stores, 4);
  EXPECT_EQ(loads, 4);
  // "st.shared.f32 [%r30+1024], %f2;" on PTX line 97
  const auto second = std::find_if(naive.body.begin(), naive.body.end(),
                                   [](const instruction& in) { return in.ptx_line == 97; });
  ASSERT_NE(second, naive.body.end());
  EXPECT_EQ(second->parts, (std::vector<std::string>{"st", "shared", "f32"}));
  EXPECT_EQ(second->operands[0].name, "%r30");
  EXPECT_EQ(second->operands[0].value, 1024);
  // "@%p3 bra $L__BB0_2;": a guard and a label
  const auto branch = std::find_if(naive.body.begin(), naive.body.end(),
                                   [](const instruction& in) { return in.opcode == "bra"; });
  ASSERT_NE(branch, naive.body.end());
  EXPECT_EQ(branch->guard, "%p3");
  EXPECT_FALSE(branch->guard_negated);
  EXPECT_EQ(branch->operands[0].kind, operand_kind::symbol);
  EXPECT_EQ(naive.labels.at(branch->operands[0].name), 30);
}

TEST(PtxParse, OperandsOfEveryForm) {
  const module m = parse(R"(.version 8.0
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .align 8 .b8 k_param_0[16], .param .u32 k_param_1)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<3>;
  @!%p1 mov.b32 %r1, 0xFF;
  mov.f32 %f1, 0f3F800000;
  ld.shared.v2.f32 {%f1, %f2}, [%r1+-8];
  add.s32 %r2, %r1, -3;
}
)");
  ASSERT_EQ(m.shared.size(), 1u);
  EXPECT_TRUE(m.shared[0].dynamic);
  const entry& k = m.find("k");
  EXPECT_EQ(k.params[0].size, 16);
  EXPECT_EQ(k.params[1].offset, 16);
  ASSERT_EQ(k.body.size(), 4u);
  EXPECT_TRUE(k.body[0].guard_negated);
  EXPECT_EQ(k.body[0].operands[1].value, 255);
  EXPECT_TRUE(k.body[1].operands[1].float_immediate);
  EXPECT_EQ(k.body[1].operands[1].value, 0x3F800000);
  EXPECT_EQ(k.body[2].operands[0].elements.size(), 2u);
  EXPECT_EQ(k.body[2].operands[1].value, -8);
  EXPECT_EQ(k.body[3].operands[2].value, -3);
}

TEST(PtxParse, ErrorsNameTheLine) {
  try {
    (void)parse(".version 8.0\n.entry k()\n{\n  .reg .b32 %r<2>;\n  add.s32 %r1, %r0 %r0;\n}\n");
    FAIL() << "no error";
  } catch (const ptx_error& e) {
    EXPECT_EQ(e.ptx_line(), 5);
    EXPECT_NE(std::string(e.what()).find("PTX line 5"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace bb::ptx
