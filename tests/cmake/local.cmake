# The local runner's end-to-end tests run the hello-tfjob trainer from this build tree, and
# the sample TFJob must validate against the official CRD.
if(TARGET local_e2e_test AND TARGET hello-tfjob)
  add_dependencies(local_e2e_test hello-tfjob)
endif()
if(TARGET local_plugin_test AND TARGET hello-tfjob)
  add_dependencies(local_plugin_test hello-tfjob)
endif()
if(TFJOB_PYTHON AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/tools/validate_crd.py)
  add_test(NAME "local: samples/hello-tfjob/tfjob.yaml validates against the TFJob CRD"
           COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/validate_crd.py --strict
                   --crd ${TFJOB_CRD_FILE} ${PROJECT_SOURCE_DIR}/samples/hello-tfjob/tfjob.yaml)
  set_tests_properties("local: samples/hello-tfjob/tfjob.yaml validates against the TFJob CRD" PROPERTIES LABELS schema)
endif()
