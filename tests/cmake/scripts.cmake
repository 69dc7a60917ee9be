# scripts/: what scripts/test.sh does before the build. install-deps.sh runs apt only for
# packages that are missing (stand-ins for dpkg-query/apt-get/sudo record the calls).
add_test(NAME "scripts:install-deps-only-what-is-missing"
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/install_deps_test.sh)
set_tests_properties("scripts:install-deps-only-what-is-missing" PROPERTIES LABELS unit)
