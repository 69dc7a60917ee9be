# The guide as a new user follows it: what the READMEs and samples state agrees with the
# code and with itself.
#  - guide:facts-agree       the operator's install ref, the claim's access mode, the cost
#                            figure and abm_version, each against its one source
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
else()
  add_test(NAME "guide:facts-agree" COMMAND ${CMAKE_COMMAND} -E echo "SKIP: no python3 found")
  set_tests_properties("guide:facts-agree" PROPERTIES LABELS guide SKIP_REGULAR_EXPRESSION "SKIP:")
endif()
if(TARGET kubectl-tfjob AND TFJOB_PYTHON)
  add_test(NAME "guide:doc-paths-agree"
           COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_doc_paths.py
                   $<TARGET_FILE:kubectl-tfjob> ${PROJECT_SOURCE_DIR})
  set_tests_properties("guide:doc-paths-agree" PROPERTIES LABELS guide)
elseif(TARGET kubectl-tfjob)
  add_test(NAME "guide:doc-paths-agree" COMMAND ${CMAKE_COMMAND} -E echo
           "SKIP: no python3 with yaml (apt-get install python3-yaml)")
  set_tests_properties("guide:doc-paths-agree" PROPERTIES LABELS guide SKIP_REGULAR_EXPRESSION "SKIP:")
endif()

# The release workflow (.github/workflows/release.yml) cannot run here: it is linted by
# GitHub's workflow rules and against this repository (scripts, release.sh's flags,
# Dockerfiles, shellcheck on each run block), and a broken one must be rejected.
if(TFJOB_PYTHON)
  add_test(NAME "release:workflow-lint"
           COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_workflow.py
                   ${PROJECT_SOURCE_DIR}/.github/workflows/release.yml ${PROJECT_SOURCE_DIR})
  add_test(NAME "release:workflow-lint-rejects-broken"
           COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_workflow.py
                   ${CMAKE_CURRENT_SOURCE_DIR}/data/workflows/broken-release.yml ${PROJECT_SOURCE_DIR} --expect-invalid)
  set_tests_properties("release:workflow-lint" "release:workflow-lint-rejects-broken" PROPERTIES LABELS release)
endif()

# The static release binary (scripts/release.sh --static): only glibc needed, runs from the
# archive. SKIP (77) without the cached build in /var/cache/kubectl-tfjob/release-static.
add_test(NAME "release:static-binary" COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/release_static_test.sh)
set_tests_properties("release:static-binary" PROPERTIES LABELS release SKIP_RETURN_CODE 77 TIMEOUT 1800)
