# The libFuzzer targets (tests/fuzz/, docs/fuzzing.md) as ctests labelled `fuzz`: one build
# step (clang, ASan + UBSan, in <build>/fuzz, through tests/fuzz/run.sh) and one bounded run
# per target. Seconds per target: $TFJOB_FUZZ_SECONDS when the test runs (default 30). A
# crash fails its test and prints the reproducer's path. Without clang/libFuzzer the tests
# SKIP (77), except with CI=true, where that is a failure.
set(_fuzz_build ${CMAKE_BINARY_DIR}/fuzz)
set(_fuzz_run ${PROJECT_SOURCE_DIR}/tests/fuzz/run.sh)
if(DEFINED ENV{TFJOB_FUZZ_SECONDS})
  set(_fuzz_secs $ENV{TFJOB_FUZZ_SECONDS})
else()
  set(_fuzz_secs 30)
endif()
math(EXPR _fuzz_timeout "${_fuzz_secs} + 300")

add_test(NAME fuzz.build COMMAND bash ${_fuzz_run} --build-only ${_fuzz_build})
set_tests_properties(fuzz.build PROPERTIES LABELS fuzz FIXTURES_SETUP fuzz_build SKIP_RETURN_CODE 77
                     TIMEOUT 3600 RESOURCE_LOCK fuzz_build)

file(GLOB _fuzz_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/fuzz/*_fuzz.cpp)
foreach(src ${_fuzz_sources})
  get_filename_component(name ${src} NAME_WE)
  string(REGEX REPLACE "_fuzz$" "" t ${name})
  # "" = seconds from $TFJOB_FUZZ_SECONDS at run time (run.sh's default: 30)
  add_test(NAME fuzz.${t} COMMAND bash ${_fuzz_run} ${_fuzz_build} "" ${t})
  set_tests_properties(fuzz.${t} PROPERTIES LABELS fuzz FIXTURES_REQUIRED fuzz_build SKIP_RETURN_CODE 77
                       TIMEOUT ${_fuzz_timeout})
endforeach()
