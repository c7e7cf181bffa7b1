# SPDX-License-Identifier: BSD-3-Clause
# Every source file carries its SPDX licence line; the check must also catch a file without one.
add_test(NAME check_spdx COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-spdx.sh)
add_test(NAME check_spdx_catches_missing COMMAND sh -c
  "d=$(mktemp -d) && printf 'int x;\\n' > \"$d/no_licence.c\" && '${CMAKE_CURRENT_SOURCE_DIR}/expect_output.sh' 1 'no_licence.c: no' '${PROJECT_SOURCE_DIR}/scripts/check-spdx.sh' \"$d\"; rc=$?; rm -rf \"$d\"; exit $rc")
set_tests_properties(check_spdx check_spdx_catches_missing PROPERTIES LABELS unit)

