# SPDX-License-Identifier: BSD-3-Clause
# The mcapi Python package (python/), run by pytest against this build's
# libmca.so in ABI mode, with py_peer as the C node of its cross-process tests.
# Skipped (77) without cffi or pytest, and in sanitizer builds, whose library
# cannot be loaded into python3. Not in a cross build: the host's python3
# cannot load a library of another architecture.
if(CMAKE_CROSSCOMPILING)
  return()
endif()
find_package(Python3 COMPONENTS Interpreter QUIET)
set(_pypy python3)
if(Python3_Interpreter_FOUND)
  set(_pypy ${Python3_EXECUTABLE})
endif()
add_executable(py_peer ${CMAKE_CURRENT_SOURCE_DIR}/python/py_peer.c)
target_include_directories(py_peer PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_definitions(py_peer PRIVATE _GNU_SOURCE)
target_link_libraries(py_peer PRIVATE mca_static)
if(CMAKE_C_FLAGS MATCHES "-fsanitize")
  add_test(NAME python_mcapi COMMAND sh -c "echo 'skipped: a sanitizer build of libmca.so cannot be loaded into python3'; exit 77")
else()
  # python3 loads libmca after start-up, with glibc's default static TLS
  # reserve (no GLIBC_TUNABLES: docs/python.md).
  add_test(NAME python_mcapi COMMAND sh -c
    "'${_pypy}' -c 'import cffi, pytest' 2>/dev/null || { echo 'skipped: python3 lacks cffi or pytest (scripts/deps.sh installs python3-cffi and python3-pytest)'; exit 77; }
     exec '${_pypy}' -m pytest -q -p no:cacheprovider '${CMAKE_CURRENT_SOURCE_DIR}/python'")
  set_tests_properties(python_mcapi PROPERTIES ENVIRONMENT
    "MCX_LIBMCA=$<TARGET_FILE:mca_shared>;MCX_PY_PEER=$<TARGET_FILE:py_peer>;MCAPI_PY_MODE=abi;GLIBC_TUNABLES=")
endif()
set_tests_properties(python_mcapi PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 300)
