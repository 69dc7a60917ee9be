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

# kubectl-tfjob end to end on the real server, each script playing the controllers, the
# scheduler and the kubelet through the API (tests/realapi/lib.sh):
#  - plugin_test.sh: submit (server-side apply, unchanged, refused spec, --dry-run=server,
#    the mnist sample with its claim, GPU preflight, --wait with the scheduler's reason), get,
#    describe, logs (-f) through the real pods/log proxy, wait, delete, 403;
#  - gpu_check_test.sh: probe pods as the server stores them, reports through pods/log,
#    Pending explained, a failed pod, cleanup, --node/--expect, 403 on nodes;
#  - serve_test.sh: server-side apply and --dry-run=server of Deployment + Service, the
#    rollout wait, ProgressDeadlineExceeded, a crash loop with events and the previous log,
#    no endpoints behind the service, list, delete, 403;
#  - serve_kserve_test.sh: serve --kserve refused without KServe's CRD, then with it: the
#    real apiserver's dry run, apply (nothing pruned), a wrong type refused, the wait's timeout;
#  - nocrd_test.sh: every command on a cluster without the TFJob CRD (its own second cluster).
#  - restart_test.sh: wait and get --watch across kube-apiserver restarts (its own cluster).
if(TARGET kubectl-tfjob)
  foreach(case plugin gpu-check serve logs-pending)
    string(REPLACE "-" "_" script ${case})
    tfjob_add_realapi_test(NAME realapi.${case}
                           COMMAND ${TFJOB_BASH} ${TFJOB_REALAPI_SRC}/${script}_test.sh
                                   $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALAPI_DIR})
  endforeach()
  # serve --kserve with KServe's CRD (the official schema excerpt) installed, then removed
  tfjob_add_realapi_test(NAME realapi.serve-kserve
                         COMMAND ${TFJOB_BASH} ${TFJOB_REALAPI_SRC}/serve_kserve_test.sh $<TARGET_FILE:kubectl-tfjob>
                                 ${TFJOB_REALAPI_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/data/crds/serving.kserve.io_inferenceservices.excerpt.yaml)
  # a second cluster, without the TFJob CRD, started and stopped by the test itself
  add_test(NAME realapi.no-crd
           COMMAND ${TFJOB_BASH} ${TFJOB_REALAPI_SRC}/nocrd_test.sh $<TARGET_FILE:kubectl-tfjob>
                   ${TFJOB_REALAPI_DIR} ${CMAKE_CURRENT_BINARY_DIR}/realapi-nocrd)
  set_tests_properties(realapi.no-crd PROPERTIES
    FIXTURES_REQUIRED realapi SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS realapi)
  # kube-apiserver restarted under `wait` and `get -A --watch`: a cluster of its own (the
  # restart would cut the other tests' connections), started and stopped by the test
  add_test(NAME realapi.restart
           COMMAND ${TFJOB_BASH} ${TFJOB_REALAPI_SRC}/restart_test.sh $<TARGET_FILE:kubectl-tfjob>
                   ${CMAKE_CURRENT_BINARY_DIR}/realapi-restart)
  set_tests_properties(realapi.restart PROPERTIES
    FIXTURES_REQUIRED realapi SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS realapi)
endif()
