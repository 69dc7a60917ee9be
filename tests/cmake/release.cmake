# The release as users install it (label release; tests/tools/release_chroot_test.sh).
#
# release:chroot-build runs scripts/release.sh --chroot: linux/amd64 and linux/arm64 built
# in a Debian 11 chroot (scripts/release-chroot.sh, cached per machine under
# /var/cache/kubectl-tfjob/release), archived with SHA256SUMS and a krew manifest into the
# build tree. A strict run (scripts/test.sh, CI=true) builds that cache when it is missing; a
# non-strict `ctest` skips until it exists (`sudo bash scripts/release.sh --chroot` warms it),
# and every test below then skips with the same reason (tests/support/skip.sh).
set(TFJOB_RELEASE_DIST ${CMAKE_CURRENT_BINARY_DIR}/release-chroot)
set(TFJOB_RELEASE_TEST bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/release_chroot_test.sh)
# The oldest glibc the release claims (README "Install", docs/release.md): RHEL 8's 2.28.
# Built on Debian 11's 2.31, the binary reaches it through release/glibc_compat.cpp.
set(TFJOB_RELEASE_GLIBC 2.28)

# The shim that takes the release down to glibc 2.28, linked into its unit test the way the
# release links it (tests/release_glibc_compat_test.cpp, cmake/TfjobGlibcCompat.cmake).
tfjob_glibc_compat(release_glibc_compat_test)

add_test(NAME "release:chroot-build" COMMAND ${TFJOB_RELEASE_TEST} build ${TFJOB_RELEASE_DIST})
# COST: the head of a long chain (both builds, then four runs, two under qemu): started early.
# TIMEOUT: a cold build on two loaded cores took over an hour in CI (2026-12-06, before the
# static archives came from Debian), timing out at 3600 s.
set_tests_properties("release:chroot-build" PROPERTIES LABELS release SKIP_RETURN_CODE 77
  TIMEOUT 5400 PROCESSORS 2 COST 900 FIXTURES_SETUP tfjob_release_chroot RESOURCE_LOCK tfjob_release_chroot)

foreach(arch amd64 arm64)
  # an ELF for the arch, NEEDED only the C library's, no glibc symbol newer than claimed
  add_test(NAME "release:elf-${arch}"
           COMMAND ${TFJOB_RELEASE_TEST} elf ${TFJOB_RELEASE_DIST} ${arch} ${TFJOB_RELEASE_GLIBC})
  set_tests_properties("release:elf-${arch}" PROPERTIES LABELS release SKIP_RETURN_CODE 77
    FIXTURES_REQUIRED tfjob_release_chroot)
endforeach()

# The archived binary in minimal chroots of the oldest and newest Debian it claims (11 and
# 13; arm64 through qemu-user): version, --help, TLS to the test API server.
foreach(run "debian11;bullseye;amd64" "debian13;trixie;amd64" "debian11;bullseye;arm64" "debian13;trixie;arm64")
  list(GET run 0 name)
  list(GET run 1 suite)
  list(GET run 2 arch)
  add_test(NAME "release:run-${name}-${arch}"
           COMMAND ${TFJOB_RELEASE_TEST} run ${TFJOB_RELEASE_DIST} ${suite} ${arch} $<TARGET_FILE:fake-apiserver>)
  set_tests_properties("release:run-${name}-${arch}" PROPERTIES LABELS release SKIP_RETURN_CODE 77
    TIMEOUT 900 FIXTURES_REQUIRED tfjob_release_chroot RESOURCE_LOCK tfjob_release_chroot)
endforeach()

if(TFJOB_PYTHON)
  # Both platforms' archives install the way krew installs them, by krew's rules.
  add_test(NAME "release:krew-manifest"
           COMMAND bash -c [=[. "$3"; tfjob_skip_recorded "$0/SKIPPED" "the release build skipped"
                    exec "$1" "$2" "$0/tfjob.yaml" --archives "$0" --platforms linux/amd64,linux/arm64 --companion hello-tfjob]=]
                   ${TFJOB_RELEASE_DIST} ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_krew.py ${TFJOB_SKIP_SH})

  # The release workflow (.github/workflows/release.yml) cannot run here: it is linted by
  # GitHub's workflow rules and against this repository (scripts, release.sh's flags,
  # Dockerfiles, shellcheck on each run block), and a broken one must be rejected.
  add_test(NAME "release:workflow-lint"
           COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_workflow.py
                   ${PROJECT_SOURCE_DIR}/.github/workflows/release.yml ${PROJECT_SOURCE_DIR})
  add_test(NAME "release:workflow-lint-rejects-broken"
           COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_workflow.py
                   ${CMAKE_CURRENT_SOURCE_DIR}/data/workflows/broken-release.yml ${PROJECT_SOURCE_DIR} --expect-invalid)
else()
  foreach(n "release:krew-manifest" "release:workflow-lint" "release:workflow-lint-rejects-broken")
    tfjob_skip_test("${n}" python-judge "no python3 with yaml and jsonschema when CMake configured"
                    "apt-get install python3-yaml python3-jsonschema (scripts/install-deps.sh), then reconfigure")
  endforeach()
endif()
set_tests_properties("release:workflow-lint" "release:workflow-lint-rejects-broken" PROPERTIES LABELS release SKIP_RETURN_CODE 77)
set_tests_properties("release:krew-manifest" PROPERTIES LABELS release SKIP_RETURN_CODE 77
  FIXTURES_REQUIRED tfjob_release_chroot)

if(TARGET kubectl-tfjob AND TARGET hello-tfjob AND TFJOB_INSTALL)
  # `cmake --install` (README "Install") puts the plugin, its completion helper and the
  # hello-tfjob trainer side by side in bin/, and the installed helper completes through the
  # installed plugin (the plugin's and the trainer's directories' install rules).
  add_test(NAME "release:install-tree"
           COMMAND bash -c [=[set -euo pipefail; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
                    cmake -DCMAKE_INSTALL_PREFIX="$d" -P "$0/plugin/cmake_install.cmake" >/dev/null
                    cmake -DCMAKE_INSTALL_PREFIX="$d" -P "$0/samples/hello-tfjob/cmake_install.cmake" >/dev/null
                    for f in kubectl-tfjob kubectl_complete-tfjob hello-tfjob; do
                      [ -x "$d/bin/$f" ] || { echo "FAIL: cmake --install put no executable bin/$f"; exit 1; }
                    done
                    out=$(env PATH=/usr/bin:/bin "$d/bin/kubectl_complete-tfjob" get -o=)
                    case "$out" in *"-o=wide"*) ;; *) echo "FAIL: the installed helper completed: $out"; exit 1 ;; esac
                    echo "PASS: bin/kubectl-tfjob, bin/hello-tfjob (submit hello --local finds it there) and bin/kubectl_complete-tfjob installed; the helper completes -o="]=]
                   ${PROJECT_BINARY_DIR})
  set_tests_properties("release:install-tree" PROPERTIES LABELS release)
endif()
