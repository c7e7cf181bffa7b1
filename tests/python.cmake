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
  # The same tests in API mode: the compiled module, its declarations read from
  # the headers by the C preprocessor, built for the run (tests/python/api_mode.py).
  add_test(NAME python_mcapi_api COMMAND sh -c
    "'${_pypy}' -c 'import cffi, pytest, pycparser, setuptools' 2>/dev/null || { echo 'skipped: python3 lacks cffi, pytest, pycparser or setuptools'; exit 77; }
     exec '${_pypy}' '${CMAKE_CURRENT_SOURCE_DIR}/python/api_mode.py' '${PROJECT_SOURCE_DIR}' '${PROJECT_BINARY_DIR}' '$<TARGET_FILE_DIR:mca_shared>'")
  set_tests_properties(python_mcapi_api PROPERTIES ENVIRONMENT
    "MCX_LIBMCA=$<TARGET_FILE:mca_shared>;MCX_PY_PEER=$<TARGET_FILE:py_peer>;GLIBC_TUNABLES=")
  # mca bench --python runs its cells and writes its JSON (no timing is checked).
  if(NOT WIN32)
  add_test(NAME mca_bench_python COMMAND sh -c
    "'${_pypy}' -c 'import cffi' 2>/dev/null || { echo 'skipped: python3 lacks cffi'; exit 77; }
     out=$(mktemp) && '$<TARGET_FILE:mca>' bench --python --quick --repeat 1 --mode abi --json \"$out\" &&
     '${_pypy}' -c 'import json, sys; c = json.load(open(sys.argv[1]))[\"cells\"]; want = {\"mp.pipe\", \"mp.queue\", \"py.py.abi\", \"py.c.abi\", \"py.py.abi.poll\", \"py.c.abi.poll\"}; assert set(c) == want, sorted(c); assert all(len(v[\"us\"]) == 1 and v[\"median_us\"] > 0 for v in c.values())' \"$out\"; rc=$?; rm -f \"$out\"; exit $rc")
  set_tests_properties(mca_bench_python PROPERTIES LABELS bench SKIP_RETURN_CODE 77 TIMEOUT 600 ENVIRONMENT
    "MCX_PY_PEER=$<TARGET_FILE:py_peer>;MCX_LIBMCA=$<TARGET_FILE:mca_shared>")
  endif()
endif()
set_tests_properties(python_mcapi PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 300)
if(TEST python_mcapi_api)
  set_tests_properties(python_mcapi_api PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
