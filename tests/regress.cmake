# SPDX-License-Identifier: BSD-3-Clause
# Regression tests: one program per hardening topic (tests/regress/regress_<topic>.c),
# each with the symptom it guards against at its top. Cross-user cases run
# as root (they switch to a second uid in a child) and skip with the reason
# otherwise.
file(GLOB MCX_REGRESS_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/regress/regress_*.c)
if(NOT MCA_WITH_PMQ)
  list(FILTER MCX_REGRESS_TESTS EXCLUDE REGEX "regress_pmq_[a-z_]*\\.c$")
endif()
foreach(src ${MCX_REGRESS_TESTS})
  get_filename_component(n ${src} NAME_WE)
  mcx_test(${n} unit ${src})
  target_compile_definitions(${n} PRIVATE MCX_MCA_PATH="$<TARGET_FILE:mca>"
    MCX_MCAPI_H="${PROJECT_SOURCE_DIR}/include/mcapi.h")
  set_tests_properties(${n} PROPERTIES TIMEOUT 120)
  if(n MATCHES "^regress_(pmq_|status_retval|chan_dead_peer)")
    set_tests_properties(${n} PROPERTIES RESOURCE_LOCK mqueue FIXTURES_REQUIRED pmq)
  endif()
endforeach()
