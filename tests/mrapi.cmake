# SPDX-License-Identifier: BSD-3-Clause
# MRAPI: `mca sync --quick` runs in CI as a smoke test of the tool and of the
# MRAPI primitives under measurement. It checks that the run completes and
# prints the table; it never asserts a timing.
if(TARGET mca AND WIN32)
  add_test(NAME mca_sync_quick COMMAND sh -c "echo 'skipped on Windows: mca sync measures System V and POSIX named semaphores and Linux futexes, which Windows has not (it says so, exit 3: scripts/wine-test.sh)'; exit 77")
  set_tests_properties(mca_sync_quick PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
elseif(TARGET mca)
  add_test(NAME mca_sync_quick COMMAND mca sync --quick --json ${CMAKE_CURRENT_BINARY_DIR}/mca_sync_quick.json)
  set_tests_properties(mca_sync_quick PROPERTIES LABELS unit TIMEOUT 120
    PASS_REGULAR_EXPRESSION "mutex hand-off.*MRAPI mutex")
endif()
