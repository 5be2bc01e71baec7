add_library(bb_warnings INTERFACE)
target_compile_options(bb_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wno-missing-field-initializers>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr>)

# Sanitizers: the C++ compiler's host code with AddressSanitizer and UBSan. With BB_FUZZ (clang)
# it also carries libFuzzer's coverage instrumentation and tests/fuzz builds the fuzz targets: the
# asan preset turns both on, so one tree builds the host code once for the unit tests and the
# fuzzers (scripts/fuzz.sh runs them).
option(BB_SANITIZE "Build host code with AddressSanitizer and UBSan" OFF)
option(BB_FUZZ "Build host code for libFuzzer too, and the libFuzzer targets (needs clang)" OFF)
if(BB_FUZZ)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address,undefined;-fno-omit-frame-pointer>")
  add_link_options(-fsanitize=address,undefined)
elseif(BB_SANITIZE)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined;-fno-omit-frame-pointer>")
  add_link_options(-fsanitize=address,undefined)
endif()
