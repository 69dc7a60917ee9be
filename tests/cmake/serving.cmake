# Serving: samples/resnet-serving stays what `serve resnet --model resnet --dry-run=client
# -o yaml` prints, and everything serve emits passes the Kubernetes OpenAPI schemas (npm
# kubernetes-models, via tests/tools/node_tool.sh; SKIP when node/npm are missing).
if(TARGET kubectl-tfjob)
  add_test(NAME "serving:resnet-sample-in-step"
           COMMAND bash -c "diff -u '${PROJECT_SOURCE_DIR}/samples/resnet-serving/resnet.yaml' <('$<TARGET_FILE:kubectl-tfjob>' serve resnet --model resnet --dry-run=client -o yaml) && echo in step || { echo 'samples/resnet-serving/resnet.yaml differs from serve --dry-run=client: regenerate it with: kubectl-tfjob serve resnet --model resnet --dry-run=client -o yaml > samples/resnet-serving/resnet.yaml'; exit 1; }")
  add_test(NAME "serving:k8s-openapi-schemas"
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/serving_emit_and_validate.sh
                   $<TARGET_FILE:kubectl-tfjob> ${CMAKE_CURRENT_BINARY_DIR}/node-tools
                   ${CMAKE_CURRENT_BINARY_DIR}/serving-emitted)
  set_tests_properties("serving:resnet-sample-in-step" PROPERTIES LABELS serving)
  set_tests_properties("serving:k8s-openapi-schemas" PROPERTIES LABELS serving SKIP_RETURN_CODE 77
                       RESOURCE_LOCK tfjob_node_tools)
endif()
