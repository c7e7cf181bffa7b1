# SPDX-License-Identifier: BSD-3-Clause
# mca bench / stress / report: behaviour only, never timings.
set(MCA_BIN $<TARGET_FILE:mca>)
set(MCA_EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/expect_output.sh)
set(MCA_TOPOS ${PROJECT_SOURCE_DIR}/tools/mca/topologies)

# bench: a tiny run exits 0 and writes valid JSON of the documented schema
add_test(NAME bench_smoke_json COMMAND sh -c
  "'${MCA_BIN}' bench --smoke --no-progress --json '${CMAKE_CURRENT_BINARY_DIR}/bench_smoke.json' >/dev/null && python3 '${CMAKE_CURRENT_SOURCE_DIR}/bench_check_json.py' '${CMAKE_CURRENT_BINARY_DIR}/bench_smoke.json'")
set_tests_properties(bench_smoke_json PROPERTIES LABELS "unit;bench" TIMEOUT 120 RUN_SERIAL TRUE)
add_test(NAME bench_rejects_bad_option COMMAND ${MCA_EXPECT} 2 "--repeat: expected a whole number from 1" ${MCA_BIN} bench --repeat 0)
set_tests_properties(bench_rejects_bad_option PROPERTIES LABELS "unit;bench")
add_test(NAME bench_rejects_bad_cpus COMMAND ${MCA_EXPECT} 2 "--cpus: expected online CPU numbers" ${MCA_BIN} bench --cpus 0,99999)
set_tests_properties(bench_rejects_bad_cpus PROPERTIES LABELS "unit;bench")

# report: the smoke JSON turns into one self-contained HTML page: first screen, figures, no external reference
add_test(NAME report_from_smoke_json COMMAND sh -c
  "'${MCA_BIN}' report '${CMAKE_CURRENT_BINARY_DIR}/bench_smoke.json' -o '${CMAKE_CURRENT_BINARY_DIR}/report_smoke.html' && grep -q 'class=\"answer' '${CMAKE_CURRENT_BINARY_DIR}/report_smoke.html' && grep -q 'Plotly.newPlot' '${CMAKE_CURRENT_BINARY_DIR}/report_smoke.html' && ! grep -Eq '<script[^>]* src=|<link[^>]* href=' '${CMAKE_CURRENT_BINARY_DIR}/report_smoke.html'")
set_tests_properties(report_from_smoke_json PROPERTIES LABELS "unit;bench" DEPENDS bench_smoke_json TIMEOUT 120)
add_test(NAME report_rejects_bad_json COMMAND ${MCA_EXPECT} 2 "is not a mca result: not valid JSON" ${MCA_BIN} report ${PROJECT_SOURCE_DIR}/tests/topologies_bad/missing_comma.json -o /dev/null)
set_tests_properties(report_rejects_bad_json PROPERTIES LABELS "unit;bench")

# stress: every example topology, short; 77 (skip) while a feature it needs is not built
file(GLOB MCA_TOPO_FILES CONFIGURE_DEPENDS ${MCA_TOPOS}/*.json)
foreach(f ${MCA_TOPO_FILES})
  get_filename_component(n ${f} NAME_WE)
  add_test(NAME stress_topology_${n} COMMAND ${MCA_BIN} stress --count 2000 --timeout 60 ${f})
  set_tests_properties(stress_topology_${n} PROPERTIES LABELS "stress;bench" SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()

# stress: deliberate faults must be caught, named, and exit non-zero
add_test(NAME stress_catches_loss COMMAND ${MCA_EXPECT} 1 "lost or reordered" ${MCA_BIN} stress --inject loss --count 2000 ${MCA_TOPOS}/ring.json)
add_test(NAME stress_catches_duplicate COMMAND ${MCA_EXPECT} 1 "duplicate" ${MCA_BIN} stress --inject dup --count 2000 ${MCA_TOPOS}/fan_in.json)
add_test(NAME stress_catches_corruption COMMAND ${MCA_EXPECT} 1 "checksum mismatch" ${MCA_BIN} stress --inject corrupt --count 2000 ${MCA_TOPOS}/one_channel.json)
set_tests_properties(stress_catches_loss stress_catches_duplicate stress_catches_corruption PROPERTIES LABELS "stress;bench" TIMEOUT 120)

# stress: bad topology files name the line and the problem
set(_bad ${PROJECT_SOURCE_DIR}/tests/topologies_bad)
add_test(NAME stress_bad_missing_comma COMMAND ${MCA_EXPECT} 2 "missing_comma.json:4: .*missing comma" ${MCA_BIN} stress ${_bad}/missing_comma.json)
add_test(NAME stress_bad_undeclared_node COMMAND ${MCA_EXPECT} 2 "undeclared_node.json:6: .*node 9 is not declared" ${MCA_BIN} stress ${_bad}/undeclared_node.json)
add_test(NAME stress_bad_type COMMAND ${MCA_EXPECT} 2 "bad_type.json:5: .*\"type\"" ${MCA_BIN} stress ${_bad}/bad_type.json)
add_test(NAME stress_bad_unknown_member COMMAND ${MCA_EXPECT} 2 "unknown_member.json:6: unknown member \"widht\"" ${MCA_BIN} stress ${_bad}/unknown_member.json)
add_test(NAME stress_bad_width COMMAND ${MCA_EXPECT} 2 "bad_width.json:5: .*width" ${MCA_BIN} stress ${_bad}/bad_width.json)
add_test(NAME stress_bad_duplicate_node COMMAND ${MCA_EXPECT} 2 "duplicate_node.json:4: node id 1 is declared twice" ${MCA_BIN} stress ${_bad}/duplicate_node.json)
add_test(NAME stress_missing_file COMMAND ${MCA_EXPECT} 2 "No such file" ${MCA_BIN} stress ${_bad}/does_not_exist.json)
set_tests_properties(stress_bad_missing_comma stress_bad_undeclared_node stress_bad_type stress_bad_unknown_member
  stress_bad_width stress_bad_duplicate_node stress_missing_file PROPERTIES LABELS "unit;bench")

# --hpc: counters per item exchanged, with the events that do not open named.
add_test(NAME bench_hpc_per_item COMMAND ${MCA_EXPECT} 0 "receiver: task-clock=[0-9.e+-]+ ns/item"
  ${MCA_BIN} bench --smoke --no-sweep --no-peers --hpc --only "msg\\.lockfree\\.spread\\.in\\.shm\\.24B")
set_tests_properties(bench_hpc_per_item PROPERTIES LABELS "unit;bench" TIMEOUT 120)

# the latency histogram of mca bench (bench/core/bench_hist.c) is tested on its own
target_sources(unit_test_bench_hist PRIVATE ${PROJECT_SOURCE_DIR}/bench/core/bench_hist.c)
# and the sample hygiene (slow samples excluded, unstable cells without a figure)
target_sources(unit_test_bench_hygiene PRIVATE ${PROJECT_SOURCE_DIR}/bench/core/bench_hygiene.c
  ${PROJECT_SOURCE_DIR}/bench/core/bench_hist.c ${PROJECT_SOURCE_DIR}/bench/core/bench_util.c)
# and the receiving side's checks: lost, repeated and corrupted items fail the sample
target_sources(unit_test_bench_checks PRIVATE ${PROJECT_SOURCE_DIR}/bench/core/bench_run.c
  ${PROJECT_SOURCE_DIR}/bench/core/bench_util.c ${PROJECT_SOURCE_DIR}/bench/core/bench_hist.c
  ${PROJECT_SOURCE_DIR}/bench/peer_basic.c)
