# Every dependency comes from the distribution's packages (scripts/install-deps.sh installs them).
find_package(CUDAToolkit 12.8 REQUIRED)
find_package(Threads REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(spdlog REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json REQUIRED)

if(TARGET yaml-cpp::yaml-cpp)
  set(BB_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(BB_YAML_TARGET yaml-cpp)
endif()

# valijson is header-only; Debian ships a CMake config, other systems may give only headers
# (set VALIJSON_INCLUDE_DIR).
find_package(valijson CONFIG QUIET)
if(NOT TARGET valijson)
  find_path(VALIJSON_INCLUDE_DIR valijson/validator.hpp REQUIRED)
  add_library(valijson INTERFACE IMPORTED)
  target_include_directories(valijson INTERFACE "${VALIJSON_INCLUDE_DIR}")
  target_compile_definitions(valijson INTERFACE VALIJSON_USE_EXCEPTIONS=1)
endif()

# CUPTI loads libnvperf_host at run time; linking it puts it on the loader's path through our RPATH.
if(NOT TARGET CUDA::cupti)
  message(FATAL_ERROR "CUPTI was not found in the CUDA Toolkit at ${CUDAToolkit_LIBRARY_DIR}")
endif()
find_library(BB_NVPERF_HOST nvperf_host HINTS "${CUDAToolkit_LIBRARY_DIR}"
             "${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/lib64" REQUIRED)

if(BB_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

set(CMAKE_BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}")
set(CMAKE_INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
