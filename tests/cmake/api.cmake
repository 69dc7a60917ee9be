# api: ctests that are not Catch2 programs.
#  - the two-translation-unit link test (every header definition is inline), header-only
#    and with the SDK compiled; <tfjob/src.hpp> names every header
#  - install the SDK to a temporary prefix and build a find_package(tfjob) consumer
#  - the independent CRD schema judge over what the plugin emits, and over a broken
#    fixture that it must reject

add_executable(api_link_test ${CMAKE_CURRENT_SOURCE_DIR}/link/link_test_1.cpp
                             ${CMAKE_CURRENT_SOURCE_DIR}/link/link_test_2.cpp)
target_link_libraries(api_link_test PRIVATE tfjob::sdk)
target_compile_options(api_link_test PRIVATE ${TFJOB_WARNINGS})
add_test(NAME "api: two-TU link test" COMMAND api_link_test)
set_tests_properties("api: two-TU link test" PROPERTIES LABELS unit)
# The same two files in the compiled mode (TFJOB_SDK_COMPILED, src/): a body left outside
# its area's section, or compiled in both a header and src/, breaks this link.
if(TARGET tfjob_sdk_compiled)
  add_executable(api_link_test_compiled ${CMAKE_CURRENT_SOURCE_DIR}/link/link_test_1.cpp
                                        ${CMAKE_CURRENT_SOURCE_DIR}/link/link_test_2.cpp)
  target_link_libraries(api_link_test_compiled PRIVATE tfjob::sdk_compiled)
  target_compile_options(api_link_test_compiled PRIVATE ${TFJOB_WARNINGS})
  add_test(NAME "api: two-TU link test, SDK compiled" COMMAND api_link_test_compiled)
  set_tests_properties("api: two-TU link test, SDK compiled" PROPERTIES LABELS unit)
endif()
# Every header follows the compiled mode's convention: <tfjob/src.hpp> names it (so its bodies
# are compiled somewhere), and its bodies sit in its own area's section, none above it.
add_test(NAME "api: every SDK header keeps its bodies in its area's section, and src.hpp names it"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/sdk_src_headers.sh ${PROJECT_SOURCE_DIR})
set_tests_properties("api: every SDK header keeps its bodies in its area's section, and src.hpp names it" PROPERTIES LABELS unit
                     PASS_REGULAR_EXPRESSION "^ok: ")

add_test(NAME "api: find_package consumer of the installed SDK"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/api_install_consumer.sh
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/api_install_consumer)
set_tests_properties("api: find_package consumer of the installed SDK" PROPERTIES
                     LABELS packaging TIMEOUT 600 PASS_REGULAR_EXPRESSION "ok: find_package"
                     ENVIRONMENT "CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER};CCACHE_BASEDIR=${PROJECT_SOURCE_DIR};CCACHE_NOHASHDIR=1")

if(TARGET kubectl-tfjob)
  add_test(NAME "api: plugin output validates against the TFJob CRD schema"
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/api_emit_and_validate.sh
                   $<TARGET_FILE:kubectl-tfjob> "${TFJOB_PYTHON}" ${TFJOB_CRD_FILE}
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/api_emitted)
  set_tests_properties("api: plugin output validates against the TFJob CRD schema" PROPERTIES
                       LABELS schema SKIP_REGULAR_EXPRESSION "^skipped:")
endif()

if(TFJOB_PYTHON)
  add_test(NAME "api: CRD schema judge rejects an invalid TFJob"
           COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/validate_crd.py
                   --crd ${TFJOB_CRD_FILE} ${CMAKE_CURRENT_SOURCE_DIR}/data/api/crd-invalid.yaml)
  set_tests_properties("api: CRD schema judge rejects an invalid TFJob" PROPERTIES LABELS schema WILL_FAIL TRUE)
  add_test(NAME "api: CRD schema judge (strict) rejects unknown fields"
           COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/validate_crd.py --strict
                   --crd ${TFJOB_CRD_FILE} ${CMAKE_CURRENT_SOURCE_DIR}/data/api/full.yaml)
  set_tests_properties("api: CRD schema judge (strict) rejects unknown fields" PROPERTIES LABELS schema WILL_FAIL TRUE)
  add_test(NAME "api: CRD schema judge accepts a full TFJob with status"
           COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/validate_crd.py
                   --crd ${TFJOB_CRD_FILE} ${CMAKE_CURRENT_SOURCE_DIR}/data/api/full.yaml)
  set_tests_properties("api: CRD schema judge accepts a full TFJob with status" PROPERTIES LABELS schema)
endif()
