# SPDX-License-Identifier: BSD-3-Clause
# `mca sem --quick` end to end (every variant, both cases, JSON
# output). Checks behaviour only — that each cell completes and the table is
# printed; it never asserts a timing or a context-switch count.
if(TARGET mca)
  add_test(NAME mca_sem_quick COMMAND mca sem --quick --json ${CMAKE_CURRENT_BINARY_DIR}/mca_sem_quick.json)
  set_tests_properties(mca_sem_quick PROPERTIES LABELS unit TIMEOUT 120
    PASS_REGULAR_EXPRESSION "S FREE when the event fires.*msg-hint"
    FAIL_REGULAR_EXPRESSION "FAILED")
  add_test(NAME mca_sem_no_rt COMMAND mca sem --no-rt --threads 3,4 --rounds 60)
  set_tests_properties(mca_sem_no_rt PROPERTIES LABELS unit TIMEOUT 120
    PASS_REGULAR_EXPRESSION "SCHED_OTHER.*S FREE" FAIL_REGULAR_EXPRESSION "FAILED")
  add_test(NAME mca_sem_bad_option COMMAND mca sem --threads 2)
  set_tests_properties(mca_sem_bad_option PROPERTIES LABELS unit WILL_FAIL TRUE)
endif()
