# The release's glibc compatibility shim (release/glibc_compat.cpp, docs/release.md): with
# TFJOB_GLIBC_COMPAT the plugin links it and wraps the glibc symbols newer than 2.28 that
# libstdc++ calls, so the release binary starts on glibc 2.28 (RHEL 8). The unit test
# (tests/glibc_compat_test.cpp) is linked the same way on any build.
# The symbols wrapped: what `objdump -T` of the Debian 11 build showed above GLIBC_2.28
# (release:elf-* fails when another one appears).
set(TFJOB_GLIBC_COMPAT_WRAPPED pthread_cond_clockwait)
function(tfjob_glibc_compat target)
  target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/release/glibc_compat.cpp)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/release)
  foreach(sym ${TFJOB_GLIBC_COMPAT_WRAPPED})
    target_link_options(${target} PRIVATE "-Wl,--wrap=${sym}")
  endforeach()
endfunction()
