# SPDX-License-Identifier: BSD-3-Clause
# MCAPI 1.0 programs (include/mcapi1.h): each 1.0 function family, with a
# node of thread scope and with the process as the node (MCX_NODE_SCOPE=process,
# the families on a thread that never initialized).
file(GLOB MCX_MCAPI1_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/mcapi1/mcapi1_*.c)
foreach(src ${MCX_MCAPI1_TESTS})
  get_filename_component(n ${src} NAME_WE)
  mcx_test(${n} conformance ${src})
  add_test(NAME ${n}_process COMMAND ${n})
  set_tests_properties(${n}_process PROPERTIES LABELS conformance TIMEOUT 300
    ENVIRONMENT "MCX_NODE_SCOPE=process")
endforeach()
# OpenMCAPI's situations over POSIX message queues too: an endpoint freed by
# its side's close gets its message queue back on its first use.
if(MCA_WITH_PMQ AND NOT WIN32 AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME mcapi1_openmcapi_pmq COMMAND mcapi1_openmcapi)
  set_tests_properties(mcapi1_openmcapi_pmq PROPERTIES LABELS conformance TIMEOUT 300
    ENVIRONMENT "MCX_TRANSPORT=pmq")
endif()
