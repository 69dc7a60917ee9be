# api: ctests that are not Catch2 programs.
#  - the two-translation-unit link test (every header definition is inline), header-only
#    and with the SDK compiled; <tfjob/src.hpp> names every header; the include graph keeps
#    README.md's layers
#  - install the SDK to a temporary prefix and build a find_package(tfjob) consumer
#  - the independent CRD schema judge over what the plugin emits, and over a broken
#    fixture that it must reject

# Header-only, and in the compiled mode (TFJOB_SDK_COMPILED, src/): there a body left outside
# its area's section, or compiled in both a header and src/, breaks the link.
set(TFJOB_LINK_TESTS "api_link_test|tfjob::sdk|api: two-TU link test")
if(TARGET tfjob_sdk_compiled)
  list(APPEND TFJOB_LINK_TESTS "api_link_test_compiled|tfjob::sdk_compiled|api: two-TU link test, SDK compiled")
endif()
foreach(entry IN LISTS TFJOB_LINK_TESTS)
  string(REPLACE "|" ";" entry "${entry}")
  list(GET entry 0 target)
  list(GET entry 1 sdk)
  list(GET entry 2 name)
  add_executable(${target} ${CMAKE_CURRENT_SOURCE_DIR}/link/link_test_1.cpp ${CMAKE_CURRENT_SOURCE_DIR}/link/link_test_2.cpp)
  target_link_libraries(${target} PRIVATE ${sdk})
  target_compile_options(${target} PRIVATE ${TFJOB_WARNINGS})
  add_test(NAME "${name}" COMMAND ${target})
  set_tests_properties("${name}" PROPERTIES LABELS unit)
endforeach()
# Every header follows the compiled mode's convention: <tfjob/src.hpp> names it (so its bodies
# are compiled somewhere), and its bodies sit in its own area's section, none above it.
add_test(NAME "api: every SDK header keeps its bodies in its area's section, and src.hpp names it"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/sdk_src_headers.sh ${PROJECT_SOURCE_DIR})
set_tests_properties("api: every SDK header keeps its bodies in its area's section, and src.hpp names it" PROPERTIES LABELS unit)

# (the SDK it installs serves samples/sdk's build too: sdk_samples.cmake)
set(TFJOB_SDK_INSTALL_PREFIX ${CMAKE_CURRENT_BINARY_DIR}/api_install_consumer/prefix)
# The include graph keeps the layers README.md documents (its "Layers depend downwards only"
# paragraph is the rule), and the check itself catches violations planted in a copy.
add_test(NAME "api: the SDK's includes keep README.md's layers"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_layers.sh ${PROJECT_SOURCE_DIR})
set_tests_properties("api: the SDK's includes keep README.md's layers" PROPERTIES LABELS unit)
add_test(NAME "api: the layer check reports planted violations"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_layers.sh --plant ${PROJECT_SOURCE_DIR})
set_tests_properties("api: the layer check reports planted violations" PROPERTIES LABELS unit)

add_test(NAME "api: find_package consumer of the installed SDK"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/api_install_consumer.sh
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/api_install_consumer)
set_tests_properties("api: find_package consumer of the installed SDK" PROPERTIES
                     LABELS packaging TIMEOUT 600 FIXTURES_SETUP tfjob_sdk_installed PROCESSORS 2
                     ENVIRONMENT "CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER};CCACHE_BASEDIR=${PROJECT_SOURCE_DIR};CCACHE_NOHASHDIR=1")

if(TARGET kubectl-tfjob)
  add_test(NAME "api: plugin output validates against the TFJob CRD schema"
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/api_emit_and_validate.sh
                   $<TARGET_FILE:kubectl-tfjob> "${TFJOB_PYTHON}" ${TFJOB_CRD_FILE}
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/api_emitted)
  set_tests_properties("api: plugin output validates against the TFJob CRD schema" PROPERTIES
                       LABELS schema SKIP_RETURN_CODE 77)
endif()

# The judge itself: a full TFJob passes, a broken one and unknown fields (strict) are refused
# (--expect-invalid: exit 0 only when the judge ran and rejected the file, never a crash).
set(_judges "api: CRD schema judge rejects an invalid TFJob|--expect-invalid|crd-invalid.yaml"
            "api: CRD schema judge (strict) rejects unknown fields|--strict --expect-invalid|full.yaml"
            "api: CRD schema judge accepts a full TFJob with status||full.yaml")
foreach(entry IN LISTS _judges)
  string(REPLACE "|" ";" entry "${entry}")
  list(GET entry 0 name)
  list(GET entry 1 flags)
  list(GET entry 2 file)
  separate_arguments(flags)
  if(TFJOB_PYTHON)
    add_test(NAME "${name}"
             COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/validate_crd.py ${flags}
                     --crd ${TFJOB_CRD_FILE} ${CMAKE_CURRENT_SOURCE_DIR}/data/api/${file})
  else()
    tfjob_skip_test("${name}" python-judge "no python3 with jsonschema and yaml when CMake configured"
                    "apt-get install python3-jsonschema python3-yaml (scripts/install-deps.sh), then reconfigure")
  endif()
  set_tests_properties("${name}" PROPERTIES LABELS schema)
endforeach()
