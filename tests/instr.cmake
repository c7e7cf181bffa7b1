# SPDX-License-Identifier: BSD-3-Clause
# `mca bench --instr`: the instruction-count mode runs every hand-off of the
# driver under callgrind and prints the table (checked by content, never by
# the counts); a malformed count is a usage error.
if(TARGET mca AND TARGET mca_instr_driver)
  find_program(MCA_VALGRIND valgrind)
  # valgrind cannot run sanitizer builds: the default build counts.
  if(MCA_VALGRIND AND NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_C_FLAGS MATCHES "-fsanitize")
    add_test(NAME mca_bench_instr COMMAND mca bench --instr --count 300 --modes lockfree)
    set_tests_properties(mca_bench_instr PROPERTIES LABELS unit TIMEOUT 300
      PASS_REGULAR_EXPRESSION "24 B message.*uint64 scalar.*24 B packet.*8 KiB message")
  else()
    message(STATUS "tests: valgrind not found (or cross-compiling, or a sanitizer build); mca_bench_instr is skipped")
  endif()
  add_test(NAME mca_bench_instr_bad_count COMMAND mca bench --instr --count 3x)
  set_tests_properties(mca_bench_instr_bad_count PROPERTIES LABELS unit TIMEOUT 60 WILL_FAIL TRUE)
  add_test(NAME mca_instr_driver_cases COMMAND mca_instr_driver msg24 100)
  set_tests_properties(mca_instr_driver_cases PROPERTIES LABELS unit TIMEOUT 60)
endif()
