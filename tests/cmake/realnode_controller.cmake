# The TFJob controller stand-in (tests/realnode/controller/): the training operator's reconcile
# (tfjob_test_operator, tests/support/operator/, shared with the fake API server's operator,
# on the SDK's tfjob/api/operator_rules.hpp) driven by the SDK's
# client against a real cluster. The real-node tier (tests/realnode/) runs it beside a real
# kubelet; here it is judged by the real kube-apiserver (label realapi), with this test
# playing the kubelet by patching pod status (docs/realnode-controller.md).
add_executable(tfjob-controller-standin ${CMAKE_CURRENT_SOURCE_DIR}/realnode/controller/main.cpp)
target_link_libraries(tfjob-controller-standin PRIVATE tfjob_test_operator)
target_compile_options(tfjob-controller-standin PRIVATE ${TFJOB_WARNINGS})

if(TARGET kubectl-tfjob AND COMMAND tfjob_add_realapi_test)
  tfjob_add_realapi_test(NAME realapi.controller
                         COMMAND ${TFJOB_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/realnode/controller/realapi_test.sh
                                 $<TARGET_FILE:tfjob-controller-standin> $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALAPI_DIR}
                         TIMEOUT 300)
endif()

# Everything the real-node tier's tests run (TFJOB_REALNODE_ENV in realnode.cmake, and the
# plugin), as one target: scripts/test.sh builds it first and starts the tier (its longest
# chain, mostly waiting on pods) while the rest of the project compiles.
add_custom_target(realnode-programs)
foreach(t kubectl-tfjob hello-tfjob tfserving-standin dcgm-exporter-standin tfjob-gpu-probe tfjob-controller-standin)
  if(TARGET ${t})
    add_dependencies(realnode-programs ${t})
  endif()
endforeach()
