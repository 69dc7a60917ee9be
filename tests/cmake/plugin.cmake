# The real kubectl judges the plugin's installation: it must find it on PATH and run it.
if(TARGET kubectl-tfjob)
  add_test(NAME plugin.kubectl-finds-plugin
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/kubectl_finds_plugin.sh $<TARGET_FILE:kubectl-tfjob>)
  set_tests_properties(plugin.kubectl-finds-plugin PROPERTIES SKIP_RETURN_CODE 77 LABELS plugin)
endif()
