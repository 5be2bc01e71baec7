# Unity builds (BB_UNITY_BUILD, on by default): a target's C++ files compiled together in batches
# of BB_UNITY_BATCH, so that the headers every file includes (fmt, spdlog, nlohmann/json, CLI11,
# GoogleTest) are read, and their templates and inline functions compiled and optimised, once per
# batch instead of once per file. The runner's modules and the test programs are built this way;
# so is the injected library (runner/CMakeLists.txt); the kernels never are (each .cu file is its
# own variant, with its own registration).
# The files of one batch share one scope: a name in an anonymous namespace must not be defined
# twice in one module or test program, and a file's `using namespace` reaches the files after it.
option(BB_UNITY_BUILD "Compile the runner's modules and the test programs in batches of files (cmake/unity.cmake)" ON)
set(BB_UNITY_BATCH 8 CACHE STRING "Files compiled together at most, with BB_UNITY_BUILD (0: all of a target's files)")

# bb_unity(<target>...): the targets' C++ files in unity batches, where BB_UNITY_BUILD is on.
function(bb_unity)
  if(NOT BB_UNITY_BUILD)
    return()
  endif()
  foreach(t IN LISTS ARGN)
    set_target_properties(${t} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${BB_UNITY_BATCH})
    # CUDA files stay apart, also with a CMake that can batch them.
    get_target_property(srcs ${t} SOURCES)
    list(FILTER srcs INCLUDE REGEX "\\.cu$")
    if(srcs)
      set_source_files_properties(${srcs} TARGET_DIRECTORY ${t} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
    # gcc's -Wsubobject-linkage takes the later files of a batch for headers, and so warns of a
    # type that uses one from an anonymous namespace (a test fixture, say): no problem in a .cpp.
    target_compile_options(${t} PRIVATE "$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-subobject-linkage>")
  endforeach()
endfunction()
