# engineer "parity": the parity scenarios and kubectl-tfjob end to end on the real tier
# (docs/parity.md). Sorted after realapi.cmake, so tfjob_add_realapi_test() exists.
if(NOT COMMAND tfjob_add_realapi_test)
  return()
endif()
# The parity scenarios against the real server (tests/support/parity_scenarios.cpp; the fake
# runs the same ones in tests/parity_fake_test.cpp). Both must match tests/data/parity/expected.json.
add_executable(realapi_parity_test ${TFJOB_REALAPI_SRC}/parity_test.cpp)
target_link_libraries(realapi_parity_test PRIVATE tfjob_catch_main tfjob_test_support)
target_compile_options(realapi_parity_test PRIVATE ${TFJOB_WARNINGS})
tfjob_add_realapi_test(NAME realapi.parity COMMAND $<TARGET_FILE:realapi_parity_test> "[realapi][parity]")

# kubectl-tfjob end to end on the real server (tests/realapi/plugin_test.sh): submit
# (server-side apply, unchanged, refused spec, --dry-run=server), get, describe, logs (-f)
# through the real pods/log proxy, wait, delete, 403 in a forbidden namespace; the script
# plays operator and kubelet through the API.
if(TARGET kubectl-tfjob)
  tfjob_add_realapi_test(NAME realapi.plugin
                         COMMAND ${TFJOB_BASH} ${TFJOB_REALAPI_SRC}/plugin_test.sh
                                 $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALAPI_DIR})
endif()
