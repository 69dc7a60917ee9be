# The SDK's dependencies, all from Debian's packages (tfjobConfig.cmake.in mirrors this
# list with find_dependency for consumers of the installed package).
find_package(Threads REQUIRED)
# TFJOB_STATIC_DEPS (release binaries, scripts/release.sh --static): OpenSSL and yaml-cpp
# from Debian's static archives (libssl-dev and libyaml-cpp-dev ship libssl.a,
# libcrypto.a and libyaml-cpp.a), so the plugin needs nothing but the C library.
if(TFJOB_STATIC_DEPS)
  set(OPENSSL_USE_STATIC_LIBS TRUE)
  set(ZLIB_USE_STATIC_LIBS TRUE)  # FindZLIB (CMake >= 3.24): zlib1g-dev's libz.a
endif()
find_package(OpenSSL REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(yaml-cpp REQUIRED)
if(TFJOB_STATIC_DEPS)
  find_library(TFJOB_YAML_CPP_STATIC NAMES libyaml-cpp.a REQUIRED)
  set(_tfjob_yaml_target yaml-cpp)
  if(NOT TARGET yaml-cpp AND TARGET yaml-cpp::yaml-cpp)
    set(_tfjob_yaml_target yaml-cpp::yaml-cpp)
  endif()
  get_target_property(_tfjob_yaml_configs ${_tfjob_yaml_target} IMPORTED_CONFIGURATIONS)
  set_target_properties(${_tfjob_yaml_target} PROPERTIES IMPORTED_LOCATION "${TFJOB_YAML_CPP_STATIC}")
  foreach(_c ${_tfjob_yaml_configs})
    set_target_properties(${_tfjob_yaml_target} PROPERTIES IMPORTED_LOCATION_${_c} "${TFJOB_YAML_CPP_STATIC}")
  endforeach()
endif()
find_package(ZLIB REQUIRED)  # workflow/archive.hpp writes .tar.gz
# cpp-httplib serves the tests' fake servers only (the SDK's client is its own,
# kube/detail/http.hpp), so the SDK and the plugin build without it (the release does).
# Debian's cpp-httplib (0.11.4) is a compiled library with no CMake config: use its
# pkg-config file, which also carries its feature macros (CPPHTTPLIB_OPENSSL_SUPPORT...).
if(TFJOB_BUILD_TESTS OR TFJOB_BUILD_BENCH OR TFJOB_BUILD_FUZZ)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET GLOBAL cpp-httplib)
endif()
