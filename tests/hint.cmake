# SPDX-License-Identifier: BSD-3-Clause
# mca hint (tools/hint/hint.py, libclang): the corpus in tests/hint/cases
# (expected report and rewrite per case, rewrites compiled), and the
# sensor-controller-actuator example run in both forms. Behaviour only: the
# switch counts are what the rewrite changes, no timing is asserted.
find_package(Python3 COMPONENTS Interpreter QUIET)
set(_hpy python3)
if(Python3_Interpreter_FOUND)
  set(_hpy ${Python3_EXECUTABLE})
endif()

# Every case and every expected rewrite compiles against the project's headers.
file(GLOB _hint_cases CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/hint/cases/*.c)
add_library(hint_corpus OBJECT ${_hint_cases})
target_compile_definitions(hint_corpus PRIVATE _DEFAULT_SOURCE) # usleep and friends, as programs built with -std=gnu11 see them
target_link_libraries(hint_corpus PRIVATE mca_static)

if(TARGET mca)
  # Without libclang's Python binding the runner exits 77 with the reason.
  add_test(NAME hint_corpus COMMAND ${_hpy} ${CMAKE_CURRENT_SOURCE_DIR}/hint/run_corpus.py
           --mca $<TARGET_FILE:mca> --cc ${CMAKE_C_COMPILER}
           -I ${PROJECT_SOURCE_DIR}/include -I ${PROJECT_BINARY_DIR}/include)
  set_tests_properties(hint_corpus PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()

foreach(_form original hinted)
  if(_form STREQUAL original)
    set(_src ${CMAKE_CURRENT_SOURCE_DIR}/hint/cases/fig3_sca.c)
  else()
    set(_src ${CMAKE_CURRENT_SOURCE_DIR}/hint/cases/fig3_sca.fixed.c)
  endif()
  add_executable(hint_fig3_${_form} ${CMAKE_CURRENT_SOURCE_DIR}/hint/fig3_driver.c ${_src})
  target_compile_definitions(hint_fig3_${_form} PRIVATE _GNU_SOURCE)
  target_link_libraries(hint_fig3_${_form} PRIVATE mca_static pthread)
endforeach()
add_test(NAME hint_fig3_switches COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hint/fig3_check.sh
         $<TARGET_FILE:hint_fig3_original> $<TARGET_FILE:hint_fig3_hinted>)
set_tests_properties(hint_fig3_switches PROPERTIES LABELS unit TIMEOUT 120 SKIP_RETURN_CODE 77)

# The rewritten fixed-count loop runs: every sample consumed, the semaphore
# taken once after the loop and free at the end (original form alongside).
foreach(_form original fixed)
  if(_form STREQUAL original)
    set(_src ${CMAKE_CURRENT_SOURCE_DIR}/hint/cases/loops.c)
  else()
    set(_src ${CMAKE_CURRENT_SOURCE_DIR}/hint/cases/loops.fixed.c)
  endif()
  add_executable(hint_loops_${_form} ${CMAKE_CURRENT_SOURCE_DIR}/hint/loops_driver.c ${_src})
  target_compile_definitions(hint_loops_${_form} PRIVATE _GNU_SOURCE)
  target_link_libraries(hint_loops_${_form} PRIVATE mca_static pthread)
  add_test(NAME hint_loops_${_form} COMMAND hint_loops_${_form})
  set_tests_properties(hint_loops_${_form} PROPERTIES LABELS unit TIMEOUT 60
    PASS_REGULAR_EXPRESSION "fixed-count loop: ok")
endforeach()
