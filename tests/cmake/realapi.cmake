# The real-apiserver tier (label `realapi`): etcd + Debian's kube-apiserver 1.20 on loopback,
# the official TFJob CRD, RBAC, fake GPU nodes and a loopback kubelet (tests/realapi/).
# One cluster per ctest run: `realapi.up` (fixture setup; builds kube-apiserver once per
# machine into /var/cache/kubectl-tfjob, see docs/realapi.md) and `realapi.down` (cleanup).
# Tests skip (77) with the reason when the tier cannot run here; CI=true makes that an error.
#   ctest -L realapi --output-on-failure
find_program(TFJOB_BASH bash)
if(NOT TFJOB_BASH)
  message(STATUS "realapi tier: no bash, not registered")
  return()
endif()

set(TFJOB_REALAPI_DIR "${CMAKE_CURRENT_BINARY_DIR}/realapi")
set(TFJOB_REALAPI_SRC "${CMAKE_CURRENT_SOURCE_DIR}/realapi")
set(TFJOB_REALAPI_CRD "${TFJOB_CRD_FILE}")

add_test(NAME realapi.up
         COMMAND ${TFJOB_BASH} ${TFJOB_REALAPI_SRC}/cluster.sh up ${TFJOB_REALAPI_DIR})
# the first run on a machine builds kube-apiserver (~8 min on 2 idle cores, more when busy)
set_tests_properties(realapi.up PROPERTIES
  FIXTURES_SETUP realapi SKIP_RETURN_CODE 77 TIMEOUT 3600 LABELS realapi COST 600
  ENVIRONMENT "TFJOB_CRD_FILE=${TFJOB_REALAPI_CRD}")

add_test(NAME realapi.down
         COMMAND ${TFJOB_BASH} ${TFJOB_REALAPI_SRC}/cluster.sh down ${TFJOB_REALAPI_DIR})
set_tests_properties(realapi.down PROPERTIES
  FIXTURES_CLEANUP realapi TIMEOUT 120 LABELS realapi)

foreach(case version crud apply-server-side invalid rbac exec logs-follow logs-errors)
  add_test(NAME realapi.kubectl.${case}
           COMMAND ${TFJOB_BASH} ${TFJOB_REALAPI_SRC}/kubectl_test.sh ${case} ${TFJOB_REALAPI_DIR})
  set_tests_properties(realapi.kubectl.${case} PROPERTIES
    FIXTURES_REQUIRED realapi SKIP_RETURN_CODE 77 TIMEOUT 180 LABELS realapi)
endforeach()

# The SDK against the real server (tests/realapi/sdk_test.cpp, Catch2; kept out of the
# tests/*_test.cpp glob so it only ever runs under the fixture). One ctest per tag.
add_executable(realapi_sdk_test ${TFJOB_REALAPI_SRC}/sdk_test.cpp)
target_link_libraries(realapi_sdk_test PRIVATE tfjob_catch_main)
target_compile_options(realapi_sdk_test PRIVATE ${TFJOB_WARNINGS})
target_compile_definitions(realapi_sdk_test PRIVATE
  TFJOB_REALAPI_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data/realapi")
foreach(tag tls discovery api watch logs)
  add_test(NAME realapi.sdk.${tag}
           COMMAND ${TFJOB_BASH} ${TFJOB_REALAPI_SRC}/cluster.sh with ${TFJOB_REALAPI_DIR} --
                   $<TARGET_FILE:realapi_sdk_test> "[realapi][${tag}]")
  set_tests_properties(realapi.sdk.${tag} PROPERTIES
    FIXTURES_REQUIRED realapi SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS realapi)
endforeach()

# For other areas' end-to-end tests against this cluster (modules sorted after this one may
# call it; earlier ones can write the same add_test by hand — see docs/realapi.md):
#   tfjob_add_realapi_test(NAME realapi.<area>.<case> COMMAND prog args...)
function(tfjob_add_realapi_test)
  cmake_parse_arguments(RA "" "NAME;TIMEOUT" "COMMAND" ${ARGN})
  if(NOT RA_TIMEOUT)
    set(RA_TIMEOUT 300)
  endif()
  add_test(NAME ${RA_NAME}
           COMMAND ${TFJOB_BASH} ${TFJOB_REALAPI_SRC}/cluster.sh with ${TFJOB_REALAPI_DIR} -- ${RA_COMMAND})
  set_tests_properties(${RA_NAME} PROPERTIES
    FIXTURES_REQUIRED realapi SKIP_RETURN_CODE 77 TIMEOUT ${RA_TIMEOUT} LABELS realapi)
endfunction()
