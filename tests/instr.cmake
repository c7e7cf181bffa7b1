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
    # The data path's instruction budget (bench/instr/budget.json): counts, not
    # time, so the machine's load cannot fail it; another compiler, machine or
    # build type than the budget's is skipped with the reason.
    find_package(Python3 COMPONENTS Interpreter QUIET)
    set(_ipy python3)
    if(Python3_Interpreter_FOUND)
      set(_ipy ${Python3_EXECUTABLE})
    endif()
    set(_lto OFF)
    if(MCX_LTO_FLAGS)
      set(_lto ON)
    endif()
    set(_budget_args ${PROJECT_SOURCE_DIR}/bench/instr/budget.json
      --compiler "${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}" --machine ${CMAKE_SYSTEM_PROCESSOR}
      --build-type "${CMAKE_BUILD_TYPE}" --lto ${_lto})
    add_test(NAME mca_instr_budget COMMAND ${_ipy} ${PROJECT_SOURCE_DIR}/bench/instr/budget_check.py
      $<TARGET_FILE:mca> ${_budget_args})
    set_tests_properties(mca_instr_budget PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
    # The check itself fails a run over budget (a saved run with two excesses).
    add_test(NAME mca_instr_budget_catches_excess COMMAND ${_ipy} ${PROJECT_SOURCE_DIR}/bench/instr/budget_check.py
      $<TARGET_FILE:mca> ${_budget_args} --results ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/instr_over_budget.json)
    set_tests_properties(mca_instr_budget_catches_excess PROPERTIES LABELS unit
      PASS_REGULAR_EXPRESSION "msg24 +lockfree.*OVER BUDGET.*scl64 +global.*locked 9.00 OVER BUDGET"
      FAIL_REGULAR_EXPRESSION "Traceback")
  else()
    message(STATUS "tests: valgrind not found (or cross-compiling, or a sanitizer build); mca_bench_instr is skipped")
  endif()
  add_test(NAME mca_bench_instr_bad_count COMMAND mca bench --instr --count 3x)
  set_tests_properties(mca_bench_instr_bad_count PROPERTIES LABELS unit TIMEOUT 60 WILL_FAIL TRUE)
  add_test(NAME mca_instr_driver_cases COMMAND mca_instr_driver msg24 100)
  set_tests_properties(mca_instr_driver_cases PROPERTIES LABELS unit TIMEOUT 60)
endif()
