# SPDX-License-Identifier: BSD-3-Clause
# Ceilings, not clocks. A test waits for the events it needs; its TIMEOUT is
# only the ceiling that stops a hung test. mcx_finish_tests(), called at the
# end of a directory that registers tests, gives every test there:
# - a ceiling of at least 300 s (900 s for tests that start Chromium,
#   libclang, Python, spin or valgrind: names report_, hint_, model_,
#   modelcheck_, mca_, bench_, hpc_, stress_topology_), three times that in a
#   sanitizer build, multiplied by MCX_TEST_TIMEOUT_SCALE (the environment at configure time, else the
#   cache variable; 1 by default);
# - MCX_TEST_TIMEOUT_SCALE in its environment, for the waits of its own
#   (tests/mcx_test.h, the test scripts);
# - the fixture suite_clean: tests/leftovers.sh removes the partitions and
#   queues a killed earlier run left, before any test starts (not on Windows).
set(MCX_TEST_TIMEOUT_SCALE 1 CACHE STRING "Factor of every test ceiling (also exported to the tests)")
set(MCX_TEST_SCALE "${MCX_TEST_TIMEOUT_SCALE}")
if(DEFINED ENV{MCX_TEST_TIMEOUT_SCALE} AND NOT "$ENV{MCX_TEST_TIMEOUT_SCALE}" STREQUAL "")
  set(MCX_TEST_SCALE "$ENV{MCX_TEST_TIMEOUT_SCALE}")
endif()
if(NOT MCX_TEST_SCALE MATCHES "^([0-9]+)(\\.([0-9]+))?$")
  message(FATAL_ERROR "MCX_TEST_TIMEOUT_SCALE must be a positive number like 2 or 1.5 (got '${MCX_TEST_SCALE}')")
endif()
# The factor in thousandths, for CMake's integer arithmetic.
string(SUBSTRING "${CMAKE_MATCH_3}000" 0 3 _mcx_frac)
math(EXPR MCX_TEST_SCALE_MILLI "${CMAKE_MATCH_1} * 1000 + 1${_mcx_frac} - 1000")
if(MCX_TEST_SCALE_MILLI LESS 1)
  message(FATAL_ERROR "MCX_TEST_TIMEOUT_SCALE must be above 0 (got '${MCX_TEST_SCALE}')")
endif()

function(mcx_finish_tests)
  set(sanitized 1)
  if(CMAKE_C_FLAGS MATCHES "-fsanitize")
    set(sanitized 3)
  endif()
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t ${tests})
    get_test_property(${t} TIMEOUT base)
    if(NOT base OR base LESS 300)
      set(base 300)
    endif()
    if(t MATCHES "^(report_|hint_|model_|modelcheck_|mca_|bench_|hpc_|stress_topology_)" AND base LESS 900)
      set(base 900)
    endif()
    math(EXPR ceiling "(${base} * ${sanitized} * ${MCX_TEST_SCALE_MILLI} + 999) / 1000")
    set_tests_properties(${t} PROPERTIES TIMEOUT ${ceiling})
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "MCX_TEST_TIMEOUT_SCALE=${MCX_TEST_SCALE}")
    if(NOT WIN32 AND NOT t STREQUAL "suite_leftovers")
      set_property(TEST ${t} APPEND PROPERTY FIXTURES_REQUIRED suite_clean)
    endif()
  endforeach()
endfunction()
