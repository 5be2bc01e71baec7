add_library(bb_warnings INTERFACE)
target_compile_options(bb_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wno-missing-field-initializers>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr>)

option(BB_SANITIZE "Build host code with AddressSanitizer and UBSan" OFF)
if(BB_SANITIZE)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined;-fno-omit-frame-pointer>")
  add_link_options(-fsanitize=address,undefined)
endif()

# Fuzzing (clang): host code instrumented for libFuzzer plus ASan and UBSan; tests/fuzz builds the
# target. scripts/fuzz.sh configures a separate build with it.
option(BB_FUZZ "Build the libFuzzer targets (needs clang)" OFF)
if(BB_FUZZ)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address,undefined;-fno-omit-frame-pointer>")
  add_link_options(-fsanitize=address,undefined)
endif()
