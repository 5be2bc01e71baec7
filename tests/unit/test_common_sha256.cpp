#include <gtest/gtest.h>

#include "runner/common/sha256.hpp"

// FIPS 180-4 / NIST test vectors, and lengths around the 55/56/64-byte padding boundaries.
TEST(common_sha256, known_vectors) {
  EXPECT_EQ(bb::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(bb::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(bb::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(bb::sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(common_sha256, padding_boundaries_differ) {
  const auto a = bb::sha256_hex(std::string(55, 'x'));
  const auto b = bb::sha256_hex(std::string(56, 'x'));
  const auto c = bb::sha256_hex(std::string(64, 'x'));
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_EQ(a.size(), 64u);
  EXPECT_EQ(bb::sha256_hex(std::string(64, 'x')), c);
}
