# The guide as a new user follows it: what the READMEs and samples state agrees with the
# code and with itself.
#  - guide:facts-agree       the operator's install ref, the claim's access mode, the cost
#                            figure, abm_version and the TensorFlow line (one release in
#                            help, docs, README and samples), each against its one source
#  - guide:facts-catch-drift check_facts.py fails, naming the file, on a copy of the tree
#                            where a sample, the help or a default names another TF release
#  - guide:doc-paths-agree   every `submit mnist|hello` and `serve --pvc` command the README
#                            and sample READMEs show, rendered by the built plugin; the path
#                            TF Serving loads is where the trainer exports
set(TFJOB_GUIDE_PY "${TFJOB_PYTHON}")
if(NOT TFJOB_GUIDE_PY AND Python3_EXECUTABLE)
  set(TFJOB_GUIDE_PY "${Python3_EXECUTABLE}")
endif()
if(TFJOB_GUIDE_PY)
  add_test(NAME "guide:facts-agree"
           COMMAND ${TFJOB_GUIDE_PY} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_facts.py ${PROJECT_SOURCE_DIR})
  set_tests_properties("guide:facts-agree" PROPERTIES LABELS guide)
  add_test(NAME "guide:facts-catch-drift"
           COMMAND ${TFJOB_GUIDE_PY} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_facts_drift.py ${PROJECT_SOURCE_DIR})
  set_tests_properties("guide:facts-catch-drift" PROPERTIES LABELS guide)
else()
  tfjob_skip_test("guide:facts-agree" no-python "no python3 when CMake configured"
                  "apt-get install python3 (scripts/install-deps.sh), then reconfigure")
endif()
set_tests_properties("guide:facts-agree" PROPERTIES LABELS guide)
if(TARGET kubectl-tfjob AND TFJOB_PYTHON)
  add_test(NAME "guide:doc-paths-agree"
           COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_doc_paths.py
                   $<TARGET_FILE:kubectl-tfjob> ${PROJECT_SOURCE_DIR})
elseif(TARGET kubectl-tfjob)
  tfjob_skip_test("guide:doc-paths-agree" python-judge "no python3 with yaml when CMake configured"
                  "apt-get install python3-yaml python3-jsonschema (scripts/install-deps.sh), then reconfigure")
endif()
if(TARGET kubectl-tfjob)
  set_tests_properties("guide:doc-paths-agree" PROPERTIES LABELS guide)
endif()
