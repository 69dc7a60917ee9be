# samples/sdk: C++ programs built against the INSTALLED SDK through find_package, as a user
# builds them (samples/CMakeLists.txt does not add them), against the SDK the api area's
# find_package test installed (tests/tools/api_install_consumer.sh; one install, used twice);
# then:
#  - validate_manifest judges the samples' TFJobs (valid) and a misspelt one (refused);
#  - read_tf_config is run with TF_CONFIGs from `kubectl-tfjob tf-config -o json` and with
#    malformed ones;
#  - submit_and_follow is run against the standalone fake API server (simulated training
#    operator + kubelet): the chief's log lines and the exit code are checked; and
#    against sdk-samples-fake-apiserver (tests/support/sdk_samples_fake_main.cpp), where a
#    chief fails: its lines, exit 1, the failed pod and exit code named.
set(TFJOB_SDK_SAMPLES_WORK ${CMAKE_CURRENT_BINARY_DIR}/sdk_samples)

add_test(NAME "sdk-samples: build samples/sdk against the installed SDK"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/sdk_samples.sh build
                 ${PROJECT_SOURCE_DIR} ${TFJOB_SDK_SAMPLES_WORK} ${TFJOB_SDK_INSTALL_PREFIX})
set_tests_properties("sdk-samples: build samples/sdk against the installed SDK" PROPERTIES
                     LABELS packaging TIMEOUT 900 FIXTURES_SETUP tfjob_sdk_samples
                     FIXTURES_REQUIRED tfjob_sdk_installed PROCESSORS 2
                     ENVIRONMENT "CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER};CCACHE_BASEDIR=${PROJECT_SOURCE_DIR};CCACHE_NOHASHDIR=1")

add_test(NAME "sdk-samples: validate_manifest judges manifests by the CRD's schema"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/sdk_samples.sh validate ${TFJOB_SDK_SAMPLES_WORK} ${PROJECT_SOURCE_DIR})
set_tests_properties("sdk-samples: validate_manifest judges manifests by the CRD's schema" PROPERTIES
                     LABELS e2e TIMEOUT 120 FIXTURES_REQUIRED tfjob_sdk_samples)

if(TARGET kubectl-tfjob)
  add_test(NAME "sdk-samples: read_tf_config reads kubectl-tfjob tf-config output"
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/sdk_samples.sh tf-config
                   ${TFJOB_SDK_SAMPLES_WORK} $<TARGET_FILE:kubectl-tfjob>)
  set_tests_properties("sdk-samples: read_tf_config reads kubectl-tfjob tf-config output" PROPERTIES
                       LABELS e2e TIMEOUT 120 FIXTURES_REQUIRED tfjob_sdk_samples)
endif()

if(TARGET fake-apiserver)
  add_test(NAME "sdk-samples: submit_and_follow against the fake API server"
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/sdk_samples.sh follow
                   ${TFJOB_SDK_SAMPLES_WORK} $<TARGET_FILE:fake-apiserver>)
  set_tests_properties("sdk-samples: submit_and_follow against the fake API server" PROPERTIES
                       LABELS e2e TIMEOUT 600 FIXTURES_REQUIRED tfjob_sdk_samples)
endif()

# The Failed path: a fake API server whose chief of TFJob sdk-fail exits 3 (the standalone
# fake-apiserver cannot script a failing replica).
add_executable(sdk-samples-fake-apiserver ${CMAKE_CURRENT_SOURCE_DIR}/support/sdk_samples_fake_main.cpp)
target_link_libraries(sdk-samples-fake-apiserver PRIVATE tfjob_test_support)
target_compile_options(sdk-samples-fake-apiserver PRIVATE ${TFJOB_WARNINGS})
add_test(NAME "sdk-samples: submit_and_follow exits 1 when the chief fails"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/sdk_samples.sh fail
                 ${TFJOB_SDK_SAMPLES_WORK} $<TARGET_FILE:sdk-samples-fake-apiserver>)
set_tests_properties("sdk-samples: submit_and_follow exits 1 when the chief fails" PROPERTIES
                     LABELS e2e TIMEOUT 600 FIXTURES_REQUIRED tfjob_sdk_samples)
