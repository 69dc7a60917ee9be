# The suite's one skip rule for CMake (tests/support/skip.sh is the rule; skip.hpp is Catch2's).
# A test whose prerequisite is missing when CMake configures (no nvcc, no python3 with
# jsonschema) is still registered under its own name, so `ctest -N` and the summary show
# it; what it runs is the skip rule, at test time, with the reason and the fix:
#
#   if(TFJOB_PYTHON)
#     add_test(NAME "x" COMMAND ...)
#   else()
#     tfjob_skip_test("x" python-judge "no python3 with jsonschema and yaml" "apt-get install ...")
#   endif()
#   set_tests_properties("x" PROPERTIES LABELS ...)      # the same either way
#
# ctest's result then comes from the exit status alone: 77 is skipped (SKIP_RETURN_CODE),
# and a strict run (CI=true, TFJOB_STRICT=1) turns the skip into exit 1 (skip.sh).
set(TFJOB_SKIP_SH "${CMAKE_CURRENT_LIST_DIR}/skip.sh")

# tfjob_skip_test(NAME ID REASON FIX): NAME runs the skip rule instead of its test
function(tfjob_skip_test name id reason fix)
  add_test(NAME "${name}" COMMAND bash "${TFJOB_SKIP_SH}" "${id}" "${reason}" "${fix}")
  set_tests_properties("${name}" PROPERTIES SKIP_RETURN_CODE 77)
endfunction()
