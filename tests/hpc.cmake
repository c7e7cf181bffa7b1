# SPDX-License-Identifier: BSD-3-Clause
# `mca coherence` end to end: a reduced --quick run (fewer repetitions, less
# work per run) plus the MESI simulation, with JSON output. Checks that every
# version runs and the output is produced; it asserts no timing.
add_test(NAME hpc_coherence_quick
  COMMAND mca coherence --quick --simulate --reps 2 --work 4M
          --json ${CMAKE_CURRENT_BINARY_DIR}/coherence_quick.json)
set_tests_properties(hpc_coherence_quick PROPERTIES LABELS unit TIMEOUT 60
  PASS_REGULAR_EXPRESSION "MESI model.*4M +private")
add_test(NAME hpc_coherence_bad_option COMMAND mca coherence --sizes 1x)
set_tests_properties(hpc_coherence_bad_option PROPERTIES LABELS unit WILL_FAIL TRUE)
