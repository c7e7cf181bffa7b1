# SPDX-License-Identifier: BSD-3-Clause
# Source rules checked as a test: atomics only through mcx_atomic.h, no OS headers in src/,
# transports below the runtime.
add_test(NAME check_atomics COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-atomics.sh)
set_tests_properties(check_atomics PROPERTIES LABELS unit)
# Layering: src/transport/ includes nothing of the runtimes above it, and the MCAPI
# and MRAPI runtimes include nothing of each other; src/ and ports/ include no "../".
add_test(NAME check_layers COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-layers.sh)
set_tests_properties(check_layers PROPERTIES LABELS unit)
