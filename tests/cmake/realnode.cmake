# The real-node tier (label `realnode`): a real single-node Kubernetes inside a network
# namespace (tests/realnode/node.sh): the realapi control plane, kube-scheduler,
# kube-controller-manager, containerd + runc + the CNI bridge, a kubelet, dnsmasq as cluster
# DNS, images built here (no registry). One node per ctest run: `realnode.up` (fixture
# setup) and `realnode.down` (cleanup: nothing left running or mounted). Scenarios run one
# at a time (RESOURCE_LOCK realnode: the node has this machine's 2 cores).
# Tests skip (77) with the reason when the tier cannot run here; CI=true makes that an error.
#   ctest -L realnode --output-on-failure          (see docs/realnode.md)
find_program(TFJOB_BASH bash)
if(NOT TFJOB_BASH)
  message(STATUS "realnode tier: no bash, not registered")
  return()
endif()

set(TFJOB_REALNODE_SRC "${CMAKE_CURRENT_SOURCE_DIR}/realnode")
set(TFJOB_REALNODE_DIR "${CMAKE_CURRENT_BINARY_DIR}/realnode")

# TF Serving's REST API in a container (the serving image's tensorflow_model_server)
add_executable(tfserving-standin ${TFJOB_REALNODE_SRC}/tfserving_standin.cpp)
target_link_libraries(tfserving-standin PRIVATE tfjob_test_support)
target_compile_options(tfserving-standin PRIVATE ${TFJOB_WARNINGS})
# NVIDIA's dcgm-exporter in a container (its /metrics page, the test's figures) for `top`
add_executable(dcgm-exporter-standin ${TFJOB_REALNODE_SRC}/dcgm_standin.cpp)
target_link_libraries(dcgm-exporter-standin PRIVATE PkgConfig::HTTPLIB)
target_compile_options(dcgm-exporter-standin PRIVATE ${TFJOB_WARNINGS})

set(_crd "${TFJOB_CRD_FILE}")
# what the images and the node are made of; a target not built here leaves its variable
# empty (the image or the controller is then missing and the scenarios needing it skip)
set(TFJOB_REALNODE_ENV
  "TFJOB_CRD_FILE=${_crd}"
  "TFJOB_REALNODE_HELLO=$<$<TARGET_EXISTS:hello-tfjob>:$<TARGET_FILE:hello-tfjob>>"
  "TFJOB_REALNODE_TFSERVING=$<TARGET_FILE:tfserving-standin>"
  "TFJOB_REALNODE_DCGM=$<$<TARGET_EXISTS:dcgm-exporter-standin>:$<TARGET_FILE:dcgm-exporter-standin>>"
  "TFJOB_REALNODE_PROBE=$<$<TARGET_EXISTS:tfjob-gpu-probe>:$<TARGET_FILE:tfjob-gpu-probe>>"
  "TFJOB_REALNODE_CONTROLLER=$<$<TARGET_EXISTS:tfjob-controller-standin>:$<TARGET_FILE:tfjob-controller-standin>>")

add_test(NAME realnode.up
         COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/node.sh up ${TFJOB_REALNODE_DIR})
# the first run on a machine may wait for tests/realapi/setup.sh's build (shared with realapi).
# COST: the tier is the suite's longest chain (the node, then its scenarios one at a time,
# mostly waiting on pods), so ctest starts it first; other tests fill the cores meanwhile.
set_tests_properties(realnode.up PROPERTIES
  FIXTURES_SETUP realnode SKIP_RETURN_CODE 77 TIMEOUT 3600 LABELS realnode COST 1000
  ENVIRONMENT "${TFJOB_REALNODE_ENV}")

add_test(NAME realnode.down
         COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/node.sh down ${TFJOB_REALNODE_DIR})
set_tests_properties(realnode.down PROPERTIES
  FIXTURES_CLEANUP realnode TIMEOUT 180 LABELS realnode)

# the skip paths themselves (not root, no netns, asked to skip; CI=true making each a failure),
# without a node: seconds
add_test(NAME realnode.skips COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/skip_test.sh)
set_tests_properties(realnode.skips PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS realnode)

# tfjob_add_realnode_test(NAME realnode.<case> [TIMEOUT s] COMMAND prog args...): CMD runs
# inside the node's network namespace with its env (KUBECONFIG, TFJOB_REALAPI_*, TFJOB_REALNODE_*)
function(tfjob_add_realnode_test)
  cmake_parse_arguments(RN "" "NAME;TIMEOUT" "COMMAND" ${ARGN})
  if(NOT RN_TIMEOUT)
    set(RN_TIMEOUT 300)
  endif()
  add_test(NAME ${RN_NAME}
           COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/node.sh with ${TFJOB_REALNODE_DIR} -- ${RN_COMMAND})
  set_tests_properties(${RN_NAME} PROPERTIES
    FIXTURES_REQUIRED realnode RESOURCE_LOCK realnode SKIP_RETURN_CODE 77 TIMEOUT ${RN_TIMEOUT} LABELS realnode
    COST 200 ENVIRONMENT "${TFJOB_REALNODE_ENV}")
endfunction()

if(TARGET kubectl-tfjob)
  foreach(case logs unschedulable image-missing serve serve-models serve-from-job gpu-check top hello logs-restarts interrupt)
    tfjob_add_realnode_test(NAME realnode.${case} TIMEOUT 300
      COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/scenarios.sh ${case} $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALNODE_DIR})
  endforeach()
  # explain on the real node (docs/explain.md): why a job waits or ended, from the real
  # scheduler's, kubelet's and PV controller's reasons, by the operator's rules (each ~10-40 s)
  foreach(case explain-gpu explain-selector explain-claim explain-exitcode explain-ps)
    tfjob_add_realnode_test(NAME realnode.${case} TIMEOUT 240
      COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/scenarios.sh ${case} $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALNODE_DIR})
  endforeach()
  # Byte-exact through the real kubelet: a line longer than the CRI's 16 KiB partial entries
  # and a last line without a newline reach `kubectl tfjob logs` as the container wrote them,
  # as kubectl logs and curl give them (found here first: the plugin asked for timestamps=true
  # and kept the partial entries' timestamps, and added a newline).
  tfjob_add_realnode_test(NAME realnode.logs-exact TIMEOUT 300
    COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/scenarios.sh logs-exact $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALNODE_DIR})
  # `kubectl tfjob wait`'s timeout names the scheduler's reason for each waiting pod, as
  # `submit --wait`'s progress does (found here: it said only "now without conditions").
  tfjob_add_realnode_test(NAME realnode.unschedulable-wait TIMEOUT 300
    COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/scenarios.sh unschedulable-wait $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALNODE_DIR})
  # serve reports a crash loop with the crashed attempt's own log: on a real kubelet
  # `previous=true` can answer "unable to retrieve container logs" in-band while the current
  # log (the last attempt, while the container waits in CrashLoopBackOff) still has it.
  tfjob_add_realnode_test(NAME realnode.serve-crash-log TIMEOUT 300
    COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/scenarios.sh serve-crash-log $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALNODE_DIR})
  # GDC bare metal's edge profile (issue 30): the kubelet restarted with reservations that leave
  # an edge node's allocatable, serve --profile edge scheduled and served beside a pod holding the
  # cluster's own requests, predict through the service proxy; a too-large model, two replicas
  # and a second server refused before anything is applied; the kubelet restored after
  tfjob_add_realnode_test(NAME realnode.serve-edge TIMEOUT 420
    COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/scenarios.sh serve-edge $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALNODE_DIR})
  # logs of every replica through the real kubelet (issue 15): order, merge, filters, JSON,
  # init containers and sidecars, exact bytes, --save and archive after cleanPodPolicy All;
  # state lines (OOMKilled, restarts, a deleted and recreated pod), --previous
  foreach(case logs-replicas logs-states)
    tfjob_add_realnode_test(NAME realnode.${case} TIMEOUT 300
      COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/scenarios.sh ${case} $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALNODE_DIR})
  endforeach()
  # suspend and resume (issue 17): the controller stand-in deletes the pods (stopped by the
  # real kubelet) and keeps the job Suspended, then recreates them, Running again
  tfjob_add_realnode_test(NAME realnode.suspend-resume TIMEOUT 300
    COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/scenarios.sh suspend-resume $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALNODE_DIR})
  # queues from discovery (issue 17): minimal Kueue, Volcano and scheduler-plugins CRDs on the
  # real API server; submit's preflight: Kueue missing, LocalQueue/Queue not found, no gang
  tfjob_add_realnode_test(NAME realnode.queues TIMEOUT 180
    COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/scenarios.sh queues $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALNODE_DIR})
  # waiting in a queue, not for a node (issue 17): a Workload with QuotaReserved False and a
  # Volcano PodGroup Pending written by the test; with the controller, a job partly Running
  tfjob_add_realnode_test(NAME realnode.queue-waits TIMEOUT 240
    COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/scenarios.sh queue-waits $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALNODE_DIR})
  # scale --workers (issue 17): an enableDynamicWorker job's new Worker created by the controller
  tfjob_add_realnode_test(NAME realnode.scale TIMEOUT 240
    COMMAND ${TFJOB_BASH} ${TFJOB_REALNODE_SRC}/scenarios.sh scale $<TARGET_FILE:kubectl-tfjob> ${TFJOB_REALNODE_DIR})
endif()
