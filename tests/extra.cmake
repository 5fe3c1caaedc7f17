# SPDX-License-Identifier: BSD-3-Clause
# Checks beyond the per-file test executables.
add_test(NAME install_tree COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/run.sh ${PROJECT_BINARY_DIR})
# Its consumers are built without sanitizers: they load an ASan library like python3 does.
if(TC_UNINSTRUMENTED_TEST_ENV)
  set_tests_properties(install_tree PROPERTIES ENVIRONMENT "${TC_UNINSTRUMENTED_TEST_ENV}")
endif()
add_test(NAME exported_symbols COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/c/check_exports.sh $<TARGET_FILE:tensorc>)

# The out-of-tree backend library, loaded at run time by c_test_dispatch.
add_library(tc_test_backend MODULE ${CMAKE_CURRENT_SOURCE_DIR}/backend/test_backend.c)
target_link_libraries(tc_test_backend PRIVATE tensorc)
set_target_properties(tc_test_backend PROPERTIES C_VISIBILITY_PRESET default)
if(TARGET c_test_dispatch)
  target_link_libraries(c_test_dispatch PRIVATE ${CMAKE_DL_LIBS})
  target_compile_definitions(c_test_dispatch PRIVATE TC_TEST_BACKEND_PATH="$<TARGET_FILE:tc_test_backend>")
  add_dependencies(c_test_dispatch tc_test_backend)
endif()

# Bad input into every generated C entry point, through ctypes (tests/capi/bad_input.py).
tc_add_python_test(capi_bad_input ${CMAKE_CURRENT_SOURCE_DIR}/capi/bad_input.py
                   --lib $<TARGET_FILE:tensorc> --ops ${PROJECT_BINARY_DIR}/generated/ops.json)

# Every generated C entry point on the CPU and on CUDA with the same inputs
# (tests/capi/device_parity.py); without a device it exits 77, reported as
# skipped with the reason. The CPU against itself tests the harness here.
tc_add_python_test(device_parity_cpu ${CMAKE_CURRENT_SOURCE_DIR}/capi/device_parity.py
                   --lib $<TARGET_FILE:tensorc> --ops ${PROJECT_BINARY_DIR}/generated/ops.json --device cpu)
tc_add_python_test(device_parity_cuda ${CMAKE_CURRENT_SOURCE_DIR}/capi/device_parity.py
                   --lib $<TARGET_FILE:tensorc> --ops ${PROJECT_BINARY_DIR}/generated/ops.json --device cuda)
set_tests_properties(device_parity_cuda PROPERTIES SKIP_RETURN_CODE 77)

# The raw C ABI from ctypes with hand-written prototypes only(docs/ffi.md).
tc_add_python_test(ffi_ctypes ${CMAKE_CURRENT_SOURCE_DIR}/ffi/ctypes_ffi.py $<TARGET_FILE:tensorc>)
set_tests_properties(install_tree exported_symbols PROPERTIES LABELS repo)

# Every C and internal test program and what they load, as one target:
# tools/intsan.sh builds only these, and make then builds them in parallel
# (it runs separate --target goals one after another).
get_property(_tc_test_targets DIRECTORY PROPERTY BUILDSYSTEM_TARGETS)
list(FILTER _tc_test_targets INCLUDE REGEX "^(c_)?test_")
add_custom_target(tc_test_programs)
add_dependencies(tc_test_programs ${_tc_test_targets} tc_test_backend tensorc)
