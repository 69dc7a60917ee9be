# The real kubectl judges the plugin's installation: it must find it on PATH and run it.
if(TARGET kubectl-tfjob)
  add_test(NAME plugin.kubectl-finds-plugin
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/kubectl_finds_plugin.sh $<TARGET_FILE:kubectl-tfjob>)
  set_tests_properties(plugin.kubectl-finds-plugin PROPERTIES SKIP_RETURN_CODE 77 LABELS plugin)
endif()

# scripts/quickstart.sh (the README's first command), its setup skipped: with no cluster
# configured it trains hello-tfjob here; with one that answers (the standalone fake API
# server with GPU nodes and its operator) it submits and follows the MNIST sample there.
if(TARGET kubectl-tfjob AND TARGET hello-tfjob)
  add_test(NAME plugin.quickstart-local
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/quickstart_test.sh local ${PROJECT_BINARY_DIR})
  add_test(NAME plugin.quickstart-cluster
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/quickstart_test.sh cluster ${PROJECT_BINARY_DIR}
                   $<TARGET_FILE:fake-apiserver>)
  add_test(NAME plugin.quickstart-auto-cluster
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/quickstart_test.sh auto-cluster ${PROJECT_BINARY_DIR}
                   $<TARGET_FILE:fake-apiserver>)
  set_tests_properties(plugin.quickstart-local plugin.quickstart-cluster plugin.quickstart-auto-cluster
                       PROPERTIES LABELS plugin TIMEOUT 300)
endif()

# The in-process CLI test calls run_cli (plugin/cli.hpp) with string streams: it links the
# plugin's own objects (commands and common helpers), so what it runs is what ships.
foreach(area cli_inprocess_test cli_contract_test cli_validate_test scale_test submit_many_test)
  if(TARGET ${area} AND TARGET tfjob_plugin_cli)
    target_link_libraries(${area} PRIVATE tfjob_plugin_cli)
  endif()
endforeach()
# scale_test too (issue 32): each command's requests beside 1,000 other jobs; submit_many_test
# for the plugin's JobSpool (common/job_spool.cpp).
