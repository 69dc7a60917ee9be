# krew distribution: scripts/release.sh packs the plugin into release archives and writes
# the krew manifest; tests/tools/check_krew.py applies krew's own validation rules to it and
# "installs" every platform from the archives (sha256, file operations, bin, LICENSE).
# Broken manifests in tests/data/krew/*/tfjob.yaml must each be rejected.
set(TFJOB_KREW_OUT "${CMAKE_CURRENT_BINARY_DIR}/release")

# Without the python judge every krew test is still registered and reports why it cannot run.
file(GLOB TFJOB_KREW_BROKEN CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/data/krew/*/tfjob.yaml)
if(NOT TFJOB_PYTHON)
  set(_names "krew:repo-manifest-valid" "krew:rejects-no-trainer" "krew:rejects-missing-platform")
  if(TARGET kubectl-tfjob AND TARGET hello-tfjob)
    list(APPEND _names "krew:release-archives" "krew:manifest-valid-and-installs" "krew:archive-runs-hello-local"
                       "krew:rejects-sha256-mismatch")
  endif()
  foreach(m ${TFJOB_KREW_BROKEN})
    get_filename_component(dir ${m} DIRECTORY)
    get_filename_component(case ${dir} NAME)
    list(APPEND _names "krew:rejects-broken-${case}")
  endforeach()
  foreach(n ${_names})
    tfjob_skip_test("${n}" python-judge "no python3 with yaml and jsonschema when CMake configured"
                    "apt-get install python3-yaml python3-jsonschema (scripts/install-deps.sh), then reconfigure")
    set_tests_properties("${n}" PROPERTIES LABELS krew)
  endforeach()
  return()
endif()

if(TARGET kubectl-tfjob AND TARGET hello-tfjob)
  # Package the binaries this build made (the plugin and the hello-tfjob trainer its archive
  # carries), for the host's os/arch, into the build tree.
  add_test(NAME "krew:release-archives"
           COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/release.sh
                   --host-binary $<TARGET_FILE:kubectl-tfjob> --host-trainer $<TARGET_FILE:hello-tfjob> --allow-shared
                   --out ${TFJOB_KREW_OUT} --manifest ${TFJOB_KREW_OUT}/krew/tfjob.yaml)
  set_tests_properties("krew:release-archives" PROPERTIES
    LABELS krew FIXTURES_SETUP tfjob_krew_release RESOURCE_LOCK tfjob_krew_release)

  add_test(NAME "krew:manifest-valid-and-installs"
           COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_krew.py
                   ${TFJOB_KREW_OUT}/krew/tfjob.yaml --archives ${TFJOB_KREW_OUT} --companion hello-tfjob)
  set_tests_properties("krew:manifest-valid-and-installs"
    PROPERTIES LABELS krew FIXTURES_REQUIRED tfjob_krew_release RESOURCE_LOCK tfjob_krew_release)

  # README step 0: an unpacked archive alone runs `submit hello --local` (no image, no build
  # tree, nothing on PATH but /usr/bin:/bin): the plugin finds the hello-tfjob beside it
  # (plugin/common/local_run.cpp's trainer_search_path). Without that file it says so and
  # starts nothing.
  add_test(NAME "krew:archive-runs-hello-local"
           COMMAND bash -c [=[set -uo pipefail; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
                    a="$0/$(awk 'NR == 1 { print $2 }' "$0/SHA256SUMS")"; mkdir "$d/x"; tar -C "$d/x" -xzf "$a" || exit 1
                    run() { env -i PATH=/usr/bin:/bin HOME="$d" "$d/x/kubectl-tfjob" submit hello --local --state-dir "$d/$1" > "$d/$1.out" 2>&1; }
                    run ok; rc=$?; [ "$rc" = 0 ] || { cat "$d/ok.out"; echo "FAIL: submit hello --local from $(basename "$a") exited $rc"; exit 1; }
                    cat "$d/ok.out"
                    grep -qE "^hello +Succeeded +.* chief:1/1,worker:2/2" "$d/ok.out" || { echo "FAIL: the job did not end Succeeded with 3 replicas"; exit 1; }
                    grep -q "^test accuracy: " "$d/ok.out" || { echo "FAIL: the chief printed no test accuracy"; exit 1; }
                    rm "$d/x/hello-tfjob"; run gone && { echo "FAIL: it ran without the archive's hello-tfjob"; exit 1; }
                    cat "$d/gone.out"; grep -q "hello-tfjob" "$d/gone.out" || { echo "FAIL: the refusal does not name hello-tfjob"; exit 1; }
                    echo "PASS: $(basename "$a") unpacked: submit hello --local found hello-tfjob next to kubectl-tfjob; without it, refused"]=]
                   ${TFJOB_KREW_OUT})
  set_tests_properties("krew:archive-runs-hello-local"
    PROPERTIES LABELS krew FIXTURES_REQUIRED tfjob_krew_release RESOURCE_LOCK tfjob_krew_release TIMEOUT 300)

  # The same manifest with one archive's sha256 changed must fail the install check.
  add_test(NAME "krew:rejects-sha256-mismatch"
           COMMAND bash -c [=[set -eo pipefail; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
                    "$1" "$2/krew_tamper.py" "$0/krew/tfjob.yaml" "$d/krew/tfjob.yaml"
                    "$1" "$2/check_krew.py" "$d/krew/tfjob.yaml" --archives "$0" --expect-invalid 2>&1 | tee "$d/out"
                    grep -qE "sha256 is [0-9a-f]+, the manifest says" "$d/out" || { echo "FAIL: rejected, but not for the sha256"; exit 1; }]=]
                   ${TFJOB_KREW_OUT} ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools)
  set_tests_properties("krew:rejects-sha256-mismatch"
    PROPERTIES LABELS krew FIXTURES_REQUIRED tfjob_krew_release RESOURCE_LOCK tfjob_krew_release)
endif()

# The manifest in the repository (krew/tfjob.yaml; the release workflow regenerates it with
# the published archives' sha256) passes krew's rules, names both platforms the release
# builds (release.sh --chroot), as the regenerated one will, and installs hello-tfjob next
# to the plugin; one that does not is caught.
add_test(NAME "krew:repo-manifest-valid"
         COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_krew.py ${PROJECT_SOURCE_DIR}/krew/tfjob.yaml
                 --platforms linux/amd64,linux/arm64 --companion hello-tfjob)
set_tests_properties("krew:repo-manifest-valid" PROPERTIES LABELS krew)
# and one that leaves the trainer out of the install (submit hello --local could not find it)
add_test(NAME "krew:rejects-no-trainer"
         COMMAND bash -c [=[set -eo pipefail; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
                  sed '/- from: hello-tfjob/,+1d' "$0" > "$d/tfjob.yaml"
                  ! grep -q "from: hello-tfjob" "$d/tfjob.yaml" || { echo "FAIL: could not drop hello-tfjob from $0"; exit 1; }
                  "$1" "$2" "$d/tfjob.yaml" --companion hello-tfjob --expect-invalid 2>&1 | tee "$d/out"
                  grep -q "hello-tfjob is not installed next to bin" "$d/out" || { echo "FAIL: rejected, but not for the trainer"; exit 1; }]=]
                 ${PROJECT_SOURCE_DIR}/krew/tfjob.yaml ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_krew.py)
set_tests_properties("krew:rejects-no-trainer" PROPERTIES LABELS krew)
# and a platform it does not list is caught
add_test(NAME "krew:rejects-missing-platform"
         COMMAND bash -c [=[out=$("$@" 2>&1) || { echo "$out"; exit 1; }; echo "$out"
                          grep -q "no platform for darwin/arm64" <<<"$out" || { echo "FAIL: rejected, but not for darwin/arm64"; exit 1; }]=] _
                 ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_krew.py ${PROJECT_SOURCE_DIR}/krew/tfjob.yaml
                 --platforms linux/amd64,linux/arm64,darwin/arm64 --expect-invalid)
set_tests_properties("krew:rejects-missing-platform" PROPERTIES LABELS krew)

foreach(m ${TFJOB_KREW_BROKEN})
  get_filename_component(dir ${m} DIRECTORY)
  get_filename_component(case ${dir} NAME)
  add_test(NAME "krew:rejects-broken-${case}"
           COMMAND ${TFJOB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_krew.py ${m} --expect-invalid)
  set_tests_properties("krew:rejects-broken-${case}" PROPERTIES LABELS krew)
endforeach()
