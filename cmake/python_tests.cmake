# SPDX-License-Identifier: BSD-3-Clause
# Tests run by Debian's /usr/bin/python3 (never the first python3 on PATH,
# which may not see Debian's packages), or by a virtual environment made from
# it with --system-site-packages (tools/dev.sh test: build-venv, which adds
# onnxruntime from PyPI).
#
# Under AddressSanitizer the interpreter itself is not instrumented, so the
# ASan runtime must be preloaded before it loads libtensorc; leak detection is
# off for these tests because CPython keeps its own allocations to the end.
# libstdc++ is preloaded too: ASan's __cxa_throw interceptor binds the real
# function at start-up, and python3 itself does not link libstdc++.
# The C and C++ suites keep leak detection on.
set(TC_TEST_PYTHON /usr/bin/python3 CACHE FILEPATH "the interpreter that runs the Python tests")

# Environment for test programs that are not instrumented themselves (python3,
# the install-tree consumers) but load an instrumented libtensorc.
set(TC_UNINSTRUMENTED_TEST_ENV "")
if(TC_SANITIZE MATCHES "address")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE TC_LIBASAN OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so
                  OUTPUT_VARIABLE TC_LIBSTDCXX OUTPUT_STRIP_TRAILING_WHITESPACE)
  list(APPEND TC_UNINSTRUMENTED_TEST_ENV "LD_PRELOAD=${TC_LIBASAN}:${TC_LIBSTDCXX}" "ASAN_OPTIONS=detect_leaks=0")
elseif(TC_UBSAN_RUNTIME)
  # clang's shared UBSan runtime (CMakeLists.txt): loaded first, not by dlopen.
  list(APPEND TC_UNINSTRUMENTED_TEST_ENV "LD_PRELOAD=${TC_UBSAN_RUNTIME}")
endif()

# tc_add_python_test(<name> <script> [args...])
function(tc_add_python_test name script)
  add_test(NAME ${name} COMMAND ${TC_TEST_PYTHON} ${script} ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS python)
  if(TC_UNINSTRUMENTED_TEST_ENV)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${TC_UNINSTRUMENTED_TEST_ENV}")
  endif()
endfunction()
