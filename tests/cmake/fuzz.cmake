# The libFuzzer targets (tests/fuzz/, docs/fuzzing.md) as ctests labelled `fuzz`: one build
# step (clang, ASan + UBSan, in <build>/fuzz, through tests/fuzz/run.sh) and one run per
# target: its seed corpus and past findings replayed whole, then its budget of mutations
# (tests/fuzz/budgets; $TFJOB_FUZZ_SECONDS when the test runs: that many seconds instead). A
# crash fails its test and prints the reproducer's path. Without clang/libFuzzer the skip rule
# decides (tests/support/skip.sh: skipped, or a failure in a strict run).
set(_fuzz_build ${CMAKE_BINARY_DIR}/fuzz)
set(_fuzz_run ${PROJECT_SOURCE_DIR}/tests/fuzz/run.sh)
if(DEFINED ENV{TFJOB_FUZZ_SECONDS})
  math(EXPR _fuzz_timeout "$ENV{TFJOB_FUZZ_SECONDS} + 300")
else()
  set(_fuzz_timeout 600)  # run.sh caps a budget at TFJOB_FUZZ_MAX_SECONDS (300)
endif()

add_test(NAME fuzz.build COMMAND bash ${_fuzz_run} --build-only ${_fuzz_build})
# (PROCESSORS: run.sh builds with -j 2; COST: the head of the fuzz chain, started early)
set_tests_properties(fuzz.build PROPERTIES LABELS fuzz FIXTURES_SETUP fuzz_build SKIP_RETURN_CODE 77
                     TIMEOUT 3600 RESOURCE_LOCK fuzz_build PROCESSORS 2 COST 500)

file(GLOB _fuzz_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/fuzz/*_fuzz.cpp)
foreach(src ${_fuzz_sources})
  get_filename_component(name ${src} NAME_WE)
  string(REGEX REPLACE "_fuzz$" "" t ${name})
  # "" = $TFJOB_FUZZ_SECONDS at run time, else the target's budget (tests/fuzz/budgets)
  add_test(NAME fuzz.${t} COMMAND bash ${_fuzz_run} ${_fuzz_build} "" ${t})
  set_tests_properties(fuzz.${t} PROPERTIES LABELS fuzz FIXTURES_REQUIRED fuzz_build SKIP_RETURN_CODE 77
                       TIMEOUT ${_fuzz_timeout})
endforeach()
