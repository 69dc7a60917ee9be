# The standalone fake API server (tests/support/fake_apiserver_main.cpp), built into the
# build's tests/ directory as `fake-apiserver`. See docs/fake-apiserver.md.
add_executable(fake-apiserver ${CMAKE_CURRENT_SOURCE_DIR}/support/fake_apiserver_main.cpp)
target_link_libraries(fake-apiserver PRIVATE tfjob_test_support)
target_compile_options(fake-apiserver PRIVATE ${TFJOB_WARNINGS})
set_target_properties(fake-apiserver PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# The judge tests run the standalone binary too.
foreach(t fakeserver_kubectl_test fakeserver_faults_test)
  if(TARGET ${t})
    add_dependencies(${t} fake-apiserver)
  endif()
endforeach()
