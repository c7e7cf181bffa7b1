# SPDX-License-Identifier: BSD-3-Clause
# The bridge (docs/bridge.md): two domains, each with its bridge, as separate
# process groups on this machine. Skipped (77, with the reason) without nng.
add_executable(bridge_node ${CMAKE_CURRENT_SOURCE_DIR}/bridge/bridge_node.c)
target_link_libraries(bridge_node PRIVATE mca_static)
target_compile_definitions(bridge_node PRIVATE _GNU_SOURCE)
# The runtime's part of a bridge's restart (runtime/adopt.h), processes and
# no bridge: a kept endpoint's owner killed holding messages, the sweep,
# the adoption.
add_executable(bridge_test_adopt ${CMAKE_CURRENT_SOURCE_DIR}/bridge/test_adopt.c)
target_include_directories(bridge_test_adopt PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/src
                           ${PROJECT_SOURCE_DIR})
target_link_libraries(bridge_test_adopt PRIVATE mca_static)
target_compile_definitions(bridge_test_adopt PRIVATE _GNU_SOURCE)
add_test(NAME bridge_adopt COMMAND bridge_test_adopt)
set_tests_properties(bridge_adopt PROPERTIES LABELS unit TIMEOUT 120
                     ENVIRONMENT "MCX_NAMESPACE=${MCX_BUILD_TAG}_bridge_adopt")
if(MCX_BRIDGE)
  add_executable(bridge_test_hmac ${CMAKE_CURRENT_SOURCE_DIR}/bridge/test_hmac.c)
  target_link_libraries(bridge_test_hmac PRIVATE mca_bridge)
  add_test(NAME bridge_hmac_rfc4231 COMMAND bridge_test_hmac)
  set_tests_properties(bridge_hmac_rfc4231 PROPERTIES LABELS unit TIMEOUT 30)
  add_executable(bridge_test_keepalive_cfg ${CMAKE_CURRENT_SOURCE_DIR}/bridge/test_keepalive_cfg.c)
  target_link_libraries(bridge_test_keepalive_cfg PRIVATE mca_bridge)
  add_test(NAME bridge_keepalive_bounds COMMAND bridge_test_keepalive_cfg)
  set_tests_properties(bridge_keepalive_bounds PROPERTIES LABELS unit TIMEOUT 30)
  set(_mca $<TARGET_FILE:mca>)
else()
  add_test(NAME bridge_hmac_rfc4231 COMMAND sh -c "echo 'skipped: the bridge is not built (nng not found; Debian: libnng-dev)'; exit 77")
  set_tests_properties(bridge_hmac_rfc4231 PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
  set(_mca "")
endif()
foreach(c messages priorities restart chankill refused channels scalars pktfrom sclfrom domains tls netns geti config starve
          flood wrongkey statedir checkfiles killstorm closerace)
  add_test(NAME bridge_${c} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/bridge_check.sh ${c} "${_mca}"
           $<TARGET_FILE:bridge_node>)
  # The script bounds every wait itself (ceilings scaled by
  # MCX_TEST_TIMEOUT_SCALE); this is only the backstop above them.
  set_tests_properties(bridge_${c} PROPERTIES LABELS unit TIMEOUT 900 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
  if(CMAKE_C_FLAGS MATCHES "-fsanitize")
    # Instrumented processes are 5-20 times slower: shorter streams.
    set_tests_properties(bridge_${c} PROPERTIES ENVIRONMENT "MCX_BRIDGE_TEST_ITEMS=20000")
  endif()
endforeach()
