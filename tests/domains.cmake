# SPDX-License-Identifier: BSD-3-Clause
add_test(NAME mca_domains_check
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/domains_check.sh $<TARGET_FILE:mca> $<TARGET_FILE:unit_test_mcapi_proc>)
set_tests_properties(mca_domains_check PROPERTIES LABELS unit TIMEOUT 60)
