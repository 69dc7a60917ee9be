# The CUDA probe, run for real: without a GPU it must exit 2 with its clear message (and a
# valid JSON document saying "no-gpu"); with a GPU it must exit 0 or 1 with a valid report.
# Whether a GPU is present is decided independently of the probe (nvidia-smi -L), so a
# probe that wrongly reports "no GPU" on a GPU machine fails.
if(TARGET tfjob-gpu-probe)
  set(_gpu_check ${CMAKE_CURRENT_SOURCE_DIR}/cmake/gpu/probe_check.cmake)
  get_property(_gpu_stubs GLOBAL PROPERTY TFJOB_CUDA_STUBS_DIR)
  foreach(mode json human expect-v100 stub-driver bad-expect render)
    add_test(NAME gpu_probe_${mode}
             COMMAND ${CMAKE_COMMAND} -DPROBE=$<TARGET_FILE:tfjob-gpu-probe> -DMODE=${mode}
                     -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/gpu-probe-${mode}
                     -DCUDA_STUBS=${_gpu_stubs} -P ${_gpu_check})
    # a mode that cannot run here says so (SKIP), never passes green
    set_tests_properties(gpu_probe_${mode} PROPERTIES LABELS gpu TIMEOUT 300
                         SKIP_REGULAR_EXPRESSION "probe_check: SKIPPED:")
  endforeach()
else()
  message(STATUS "tests: tfjob-gpu-probe not built (no nvcc); its ctests are skipped")
endif()

# gpu/run-on-device.sh's preflight, without building anything: a machine without nvcc gets
# exit 4, a preflight.txt that lists what was found and names what is missing, and no probe
# run (no probe.json). The full script (build + run) is the device check itself.
add_test(NAME gpu_run_on_device_preflight
         COMMAND bash -c "out=$(mktemp -d) && env OUT=\"$out\" BUILD=\"$out/build\" CMAKE_CUDA_COMPILER=/nonexistent/nvcc bash '${PROJECT_SOURCE_DIR}/gpu/run-on-device.sh' 2>/dev/null; rc=$?; cat \"$out/preflight.txt\"; test $rc = 4 && grep -q '^nvcc: NOT FOUND (/nonexistent/nvcc)' \"$out/preflight.txt\" && grep -q '^cmake: cmake version' \"$out/preflight.txt\" && grep -q '^nlohmann/json.hpp: ' \"$out/preflight.txt\" && test ! -e \"$out/probe.json\"; r=$?; rm -rf \"$out\"; exit $r")
set_tests_properties(gpu_run_on_device_preflight PROPERTIES LABELS unit TIMEOUT 60)
