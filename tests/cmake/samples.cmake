# Samples: every YAML under samples/ is judged by an independent validator, and each judge
# is shown to reject a deliberately broken fixture from tests/data/samples/.
#  - TFJobs: the official CRD's openAPIV3Schema, strictly (python3-jsonschema).
#  - Everything else: the Kubernetes OpenAPI schemas (npm kubernetes-models, installed by
#    tests/tools/node_tool.sh into the build tree from the committed package-lock.json).
#  - Python under samples/ compiles; samples/mnist matches the built-in sample's contract.
#  - Terraform under samples/ is `terraform fmt` clean (when terraform is installed); the edge
#    sample's cluster config and variables' checks as Terraform itself evaluates them.
# A judge that cannot run here (no python with jsonschema+yaml, no node/npm, no terraform)
# makes its tests report SKIP with the reason (support/skip.cmake), never pass silently or
# vanish; a strict run fails on them.
set(TFJOB_SAMPLES_DIR "${PROJECT_SOURCE_DIR}/samples")
set(TFJOB_SAMPLES_BROKEN "${CMAKE_CURRENT_SOURCE_DIR}/data/samples")
set(TFJOB_SAMPLES_TOOLS "${CMAKE_CURRENT_SOURCE_DIR}/tools")
set(TFJOB_NODE_TOOLS_DIR "${CMAKE_CURRENT_BINARY_DIR}/node-tools")
if(TFJOB_SHARED_CRD_FILE)
  set(TFJOB_SAMPLES_CRD "${TFJOB_SHARED_CRD_FILE}")
else()
  set(TFJOB_SAMPLES_CRD "${TFJOB_CRD_FILE}")
endif()

file(GLOB TFJOB_SAMPLES_BROKEN_TFJOBS CONFIGURE_DEPENDS ${TFJOB_SAMPLES_BROKEN}/tfjob-*.yaml)
file(GLOB TFJOB_SAMPLES_BROKEN_K8S CONFIGURE_DEPENDS ${TFJOB_SAMPLES_BROKEN}/k8s-*.yaml)

set(_judge_fix "apt-get install python3-jsonschema python3-yaml (scripts/install-deps.sh), then reconfigure")

# ---- TFJobs against the CRD schema ----------------------------------------------------
if(TFJOB_PYTHON)
  add_test(NAME "samples:tfjobs-crd-schema"
           COMMAND ${TFJOB_PYTHON} ${TFJOB_SAMPLES_TOOLS}/validate_crd.py --strict --other-kinds
                   --crd ${TFJOB_SAMPLES_CRD} ${TFJOB_SAMPLES_DIR})
  add_test(NAME "samples:crd-judge-rejects-broken"
           COMMAND ${TFJOB_PYTHON} ${TFJOB_SAMPLES_TOOLS}/validate_crd.py --strict --other-kinds
                   --crd ${TFJOB_SAMPLES_CRD} --expect-invalid ${TFJOB_SAMPLES_BROKEN_TFJOBS})
  add_test(NAME "samples:mnist-contract"
           COMMAND ${TFJOB_PYTHON} ${TFJOB_SAMPLES_TOOLS}/check_mnist.py ${TFJOB_SAMPLES_DIR})
else()
  foreach(n "samples:tfjobs-crd-schema" "samples:crd-judge-rejects-broken" "samples:mnist-contract")
    tfjob_skip_test("${n}" python-judge "no python3 with jsonschema and yaml when CMake configured" "${_judge_fix}")
  endforeach()
endif()
set_tests_properties("samples:tfjobs-crd-schema"
                     "samples:crd-judge-rejects-broken"
                     "samples:mnist-contract"
                     PROPERTIES LABELS samples)

# ---- everything else against the Kubernetes OpenAPI schemas ---------------------------
add_test(NAME "samples:k8s-openapi-schemas"
         COMMAND bash ${TFJOB_SAMPLES_TOOLS}/node_tool.sh ${TFJOB_NODE_TOOLS_DIR}
                 validate_k8s.mjs ${TFJOB_SAMPLES_DIR})
add_test(NAME "samples:k8s-judge-rejects-broken"
         COMMAND bash ${TFJOB_SAMPLES_TOOLS}/node_tool.sh ${TFJOB_NODE_TOOLS_DIR}
                 validate_k8s.mjs --expect-invalid ${TFJOB_SAMPLES_BROKEN_K8S})
set_tests_properties("samples:k8s-openapi-schemas"
                     "samples:k8s-judge-rejects-broken"
                     PROPERTIES LABELS samples SKIP_RETURN_CODE 77
                                RESOURCE_LOCK tfjob_node_tools)

# ---- Python compiles ------------------------------------------------------------------
set(TFJOB_SAMPLES_PY "${TFJOB_PYTHON}")
if(NOT TFJOB_SAMPLES_PY AND Python3_EXECUTABLE)
  set(TFJOB_SAMPLES_PY "${Python3_EXECUTABLE}")
endif()
if(TFJOB_SAMPLES_PY)
  add_test(NAME "samples:python-compiles"
           COMMAND ${TFJOB_SAMPLES_PY} ${TFJOB_SAMPLES_TOOLS}/check_python.py ${TFJOB_SAMPLES_DIR})
  add_test(NAME "samples:python-check-rejects-broken"
           COMMAND ${TFJOB_SAMPLES_PY} ${TFJOB_SAMPLES_TOOLS}/check_python.py --expect-invalid
                   ${TFJOB_SAMPLES_BROKEN}/python)
else()
  foreach(n "samples:python-compiles" "samples:python-check-rejects-broken")
    tfjob_skip_test("${n}" no-python "no python3 when CMake configured" "apt-get install python3, then reconfigure")
  endforeach()
endif()
set_tests_properties("samples:python-compiles"
                     "samples:python-check-rejects-broken" PROPERTIES LABELS samples)

# ---- shell scripts parse --------------------------------------------------------------
add_test(NAME "samples:shell-syntax"
         COMMAND bash -c [=[n=0; bad=0
                  while IFS= read -r f; do n=$((n+1))
                    if bash -n "$f"; then echo "ok   $f"; else echo "FAIL $f"; bad=$((bad+1)); fi
                  done < <(find "$0" -name '*.sh' -not -path '*/.terraform/*' | sort)
                  echo "$((n-bad)) passed, $bad failed"; [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]]=]
                 ${TFJOB_SAMPLES_DIR})
set_tests_properties("samples:shell-syntax" PROPERTIES LABELS samples)

# ---- terraform fmt --------------------------------------------------------------------
find_program(TFJOB_TERRAFORM terraform)
if(TFJOB_TERRAFORM)
  # TF_CLI_CONFIG_FILE: keep terraform from looking for ~/.terraformrc; fmt needs no init.
  add_test(NAME "samples:terraform-fmt"
           COMMAND ${CMAKE_COMMAND} -E env TF_CLI_CONFIG_FILE=/dev/null
                   ${TFJOB_TERRAFORM} fmt -check -recursive -diff ${TFJOB_SAMPLES_DIR})
  add_test(NAME "samples:terraform-fmt-rejects-unformatted"
           COMMAND bash -c [=[TF_CLI_CONFIG_FILE=/dev/null "$0" fmt -check -recursive "$1"; rc=$?
                    echo "terraform fmt -check exited $rc"; [ "$rc" -eq 3 ]]=]
                   ${TFJOB_TERRAFORM} ${TFJOB_SAMPLES_BROKEN}/terraform)
  # the edge sample as Terraform reads it: its cluster config rendered by templatefile()
  # (standalone, profile edge, one node), its variables' checks by `terraform plan`
  if(TFJOB_PYTHON)
    add_test(NAME "samples:terraform-edge"
             COMMAND ${TFJOB_PYTHON} ${TFJOB_SAMPLES_TOOLS}/check_terraform_edge.py ${TFJOB_TERRAFORM} ${PROJECT_SOURCE_DIR})
  else()
    tfjob_skip_test("samples:terraform-edge" no-python-yaml "no python3 with yaml for the edge sample's check"
                    "apt-get install python3-yaml (scripts/install-deps.sh does), then reconfigure")
  endif()
  set_tests_properties("samples:terraform-edge" PROPERTIES LABELS samples)
else()
  foreach(n "samples:terraform-fmt" "samples:terraform-fmt-rejects-unformatted" "samples:terraform-edge")
    tfjob_skip_test("${n}" no-terraform "terraform was not on PATH when CMake configured (Debian has no package for it)"
                    "install HashiCorp's terraform (developer.hashicorp.com/terraform/install), then reconfigure")
  endforeach()
  set_tests_properties("samples:terraform-edge" PROPERTIES LABELS samples)
endif()
set_tests_properties("samples:terraform-fmt"
                     "samples:terraform-fmt-rejects-unformatted"
                     PROPERTIES LABELS samples)
