# SPDX-License-Identifier: BSD-3-Clause
# Source rules checked as a test: atomics only through mcx_atomic.h, no OS headers in src/.
add_test(NAME check_atomics COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-atomics.sh)
set_tests_properties(check_atomics PROPERTIES LABELS unit)
