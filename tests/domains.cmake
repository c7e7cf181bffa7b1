# SPDX-License-Identifier: BSD-3-Clause
# libmca.so for the receiver killed asleep; a sanitizer build's library cannot be preloaded into python3.
set(_libmca $<TARGET_FILE:mca_shared>)
if(CMAKE_C_FLAGS MATCHES "-fsanitize")
  set(_libmca "")
endif()
add_test(NAME mca_domains_check
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/domains_check.sh $<TARGET_FILE:mca> $<TARGET_FILE:unit_test_mcapi_proc> "${_libmca}")
set_tests_properties(mca_domains_check PROPERTIES LABELS unit TIMEOUT 60)
