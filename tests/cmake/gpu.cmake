# The CUDA probe, run for real: without a GPU it must exit 2 with its clear message (and a
# valid JSON document saying "no-gpu"); with a GPU it must exit 0 or 1 with a valid report.
# Whether a GPU is present is decided independently of the probe (nvidia-smi -L), so a
# probe that wrongly reports "no GPU" on a GPU machine fails.
set(TFJOB_GPU_PROBE_MODES json human expect-v100 stub-driver bad-expect render)
if(TARGET tfjob-gpu-probe)
  set(_gpu_check ${CMAKE_CURRENT_SOURCE_DIR}/cmake/gpu/probe_check.cmake)
  get_property(_gpu_stubs GLOBAL PROPERTY TFJOB_CUDA_STUBS_DIR)
  foreach(mode ${TFJOB_GPU_PROBE_MODES})
    set(_probe_check ${CMAKE_COMMAND} -DPROBE=$<TARGET_FILE:tfjob-gpu-probe> -DMODE=${mode}
                     -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/gpu-probe-${mode} -DCUDA_STUBS=${_gpu_stubs} -P ${_gpu_check})
    if(mode STREQUAL "stub-driver")
      # the stub libcuda stands for "no driver": where a real one is loaded (nvidia-smi -L lists a
      # GPU) the case cannot run (an allowed skip, support/skips-allowed.txt); decided before it runs
      add_test(NAME gpu_probe_${mode}
               COMMAND bash -c [=[. "$0"
                        if nvidia-smi -L 2>/dev/null | grep -q "GPU [0-9]"; then
                          tfjob_skip gpu-driver-present "an NVIDIA driver and GPU are present: the stub libcuda cannot stand for no driver here" "run it on a machine without an NVIDIA driver"
                        fi
                        [ -e "$1/libcuda.so" ] || tfjob_skip cuda-stub-missing "the CUDA toolkit has no stub libcuda at $1/libcuda.so" "install the toolkit's stubs (cuda-driver-dev) and reconfigure"
                        shift; exec "$@"]=] ${TFJOB_SKIP_SH} ${_gpu_stubs} ${_probe_check})
    else()
      add_test(NAME gpu_probe_${mode} COMMAND ${_probe_check})
    endif()
  endforeach()
else()
  # the tier does not vanish: each case is still a test, reporting why it cannot run here
  if(NOT TFJOB_BUILD_GPU_PROBE)
    set(_why asked "TFJOB_BUILD_GPU_PROBE=OFF: tfjob-gpu-probe is not built" "configure with -DTFJOB_BUILD_GPU_PROBE=ON")
  else()
    set(_why no-nvcc "no CUDA compiler (nvcc) when CMake configured: tfjob-gpu-probe is not built"
             "install the CUDA toolkit (NVIDIA's, or Debian non-free's nvidia-cuda-toolkit) or set CMAKE_CUDA_COMPILER, then reconfigure")
  endif()
  foreach(mode ${TFJOB_GPU_PROBE_MODES})
    tfjob_skip_test(gpu_probe_${mode} ${_why})
  endforeach()
endif()
foreach(mode ${TFJOB_GPU_PROBE_MODES})
  # the result is the exit status alone (probe_check.cmake fails with FATAL_ERROR)
  set_tests_properties(gpu_probe_${mode} PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()

# gpu/run-on-device.sh's preflight, without building anything: a machine without nvcc gets
# exit 4, a preflight.txt that lists what was found and names what is missing, and no probe
# run (no probe.json). The full script (build + run) is the device check itself.
add_test(NAME gpu_run_on_device_preflight
         COMMAND bash -c "out=$(mktemp -d) && env OUT=\"$out\" BUILD=\"$out/build\" CMAKE_CUDA_COMPILER=/nonexistent/nvcc bash '${PROJECT_SOURCE_DIR}/gpu/run-on-device.sh' 2>/dev/null; rc=$?; cat \"$out/preflight.txt\"; test $rc = 4 && grep -q '^nvcc: NOT FOUND (/nonexistent/nvcc)' \"$out/preflight.txt\" && grep -q '^cmake: cmake version' \"$out/preflight.txt\" && grep -q '^nlohmann/json.hpp: ' \"$out/preflight.txt\" && test ! -e \"$out/probe.json\"; r=$?; rm -rf \"$out\"; exit $r")
set_tests_properties(gpu_run_on_device_preflight PROPERTIES LABELS unit TIMEOUT 60)
