# SPDX-License-Identifier: BSD-3-Clause
# The message tests once more on the POSIX message-queue transport
# (MCX_TRANSPORT=pmq: every domain whose first node leaves `transport` at 0
# uses it), between a setup that makes /dev/mqueue listable and a check that
# no queue is left behind. docs/pmq.md lists where the two transports differ.
add_test(NAME pmq_mqueue_setup COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/pmq_mqueue.sh setup)
add_test(NAME pmq_no_queues_left COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/pmq_mqueue.sh check ${MCX_BUILD_TAG})
set_tests_properties(pmq_mqueue_setup PROPERTIES LABELS unit FIXTURES_SETUP pmq)
set_tests_properties(pmq_no_queues_left PROPERTIES LABELS unit FIXTURES_CLEANUP pmq)

# name:label (the C++ conformance target is defined after this file is included,
# so its test properties cannot be read here; the target name resolves later).
set(MCX_PMQ_TESTS unit_test_mcapi_core:unit unit_test_mcapi_proc:unit stress_messages:stress
    stress_mcapi_crash:stress conf_reference_style:conformance conf_reference_style_cxx:conformance
    # Channels: one queue per connection on pmq (docs/pmq.md).
    unit_test_channels:unit unit_test_chan_proc:unit stress_channels:stress
    # Claim/commit sends: a claim is process memory, the commit a send.
    unit_test_pkt_claim:unit
    # Receives that name the semaphore they lock next (docs/sem.md), on queues.
    unit_test_chan_sem:unit unit_test_pisem:unit)
foreach(entry ${MCX_PMQ_TESTS})
  string(REPLACE ":" ";" parts ${entry})
  list(GET parts 0 t)
  list(GET parts 1 label)
  if(t MATCHES "_cxx$" AND NOT CMAKE_CXX_COMPILER)
    continue() # no C++ compiler: the C++ build of the program does not exist
  endif()
  add_test(NAME ${t}_pmq COMMAND ${t})
  set_tests_properties(${t}_pmq PROPERTIES LABELS ${label} TIMEOUT 300
    ENVIRONMENT "MCX_TRANSPORT=pmq;MCX_NAMESPACE=${MCX_BUILD_TAG}_${t}_pmq;${MCX_TEST_ENV}"
    FIXTURES_REQUIRED pmq)
endforeach()
# The pmq-only cases (limits, queue sizes, stale queues) need the fixture too.
set_tests_properties(unit_test_pmq PROPERTIES FIXTURES_REQUIRED pmq)
