# scripts/: what scripts/test.sh does before the build. install-deps.sh runs apt only for
# packages that are missing (stand-ins for dpkg-query/apt-get/sudo record the calls).
add_test(NAME "scripts:install-deps-only-what-is-missing"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/install_deps_test.sh)
set_tests_properties("scripts:install-deps-only-what-is-missing" PROPERTIES LABELS unit)
# tests/realapi/setup.sh --check only looks: no deb-src entries and no cache give exit 77 and
# no apt-get, no apt sources file, no cache directory (stand-ins record the calls).
add_test(NAME "scripts:realapi-setup-check-is-read-only"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/realapi_check_test.sh)
set_tests_properties("scripts:realapi-setup-check-is-read-only" PROPERTIES LABELS unit)
