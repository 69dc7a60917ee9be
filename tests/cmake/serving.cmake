# Serving: samples/resnet-serving stays what `serve resnet --model resnet --dry-run=client
# -o yaml` prints, and everything serve emits passes the Kubernetes OpenAPI schemas (npm
# kubernetes-models, via tests/tools/node_tool.sh; skipped by the rule when node/npm are missing).
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
# predict --image's e2e case writes real PNG and JPEG files with Debian's stb_image_write.h
find_path(TFJOB_STB_INCLUDE_DIR stb_image.h PATH_SUFFIXES stb)
if(TARGET serving_e2e_test AND TFJOB_STB_INCLUDE_DIR)
  target_include_directories(serving_e2e_test SYSTEM PRIVATE ${TFJOB_STB_INCLUDE_DIR})
endif()
# serve --kserve: every InferenceService it emits passes KServe's CRD schema (the official
# text, an excerpt: tests/data/crds/serving.kserve.io_inferenceservices.excerpt.yaml), strictly.
if(TARGET kubectl-tfjob)
  add_test(NAME "serving:kserve-crd-schema"
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/kserve_emit_and_validate.sh
                   $<TARGET_FILE:kubectl-tfjob> "${TFJOB_PYTHON}"
                   ${CMAKE_CURRENT_SOURCE_DIR}/data/crds/serving.kserve.io_inferenceservices.excerpt.yaml
                   ${CMAKE_CURRENT_BINARY_DIR}/kserve-emitted)
  set_tests_properties("serving:kserve-crd-schema" PROPERTIES LABELS "serving;schema" SKIP_RETURN_CODE 77)
endif()
