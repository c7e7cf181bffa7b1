# SPDX-License-Identifier: BSD-3-Clause
# mca model: the closed form, the simulation against it, the operation counter
# against a toy with known counts, bad inputs, and a smoke run on a fixture.
# Behaviour only, never timings.
find_package(Python3 COMPONENTS Interpreter QUIET)
set(_py python3)
if(Python3_Interpreter_FOUND)
  set(_py ${Python3_EXECUTABLE})
endif()
set(_menv "MCA_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
set(MCA_EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/expect_output.sh)

# SimPy missing: the unit tests skip (77) rather than fail; scripts/deps.sh installs it.
add_test(NAME model_unit COMMAND sh -c
  "'${_py}' -c 'import simpy' 2>/dev/null || { echo 'SKIP: simpy missing (scripts/deps.sh)'; exit 77; }; exec '${_py}' '${CMAKE_CURRENT_SOURCE_DIR}/model/test_model.py'")
set_tests_properties(model_unit PROPERTIES LABELS "unit;model" TIMEOUT 300 SKIP_RETURN_CODE 77 ENVIRONMENT "${_menv}")

# The stream model on a small input (a trimmed bench result with its measured inputs): properties, not a copied result.
add_test(NAME model_stream COMMAND ${_py} ${CMAKE_CURRENT_SOURCE_DIR}/model/test_stream.py)
set_tests_properties(model_stream PROPERTIES LABELS "unit;model" TIMEOUT 120 ENVIRONMENT "${_menv}")

# The probe and the timed hand-off the stream model measures its inputs with: they run and give positive numbers.
add_test(NAME model_probe_runs COMMAND sh -c
  "'$<TARGET_FILE:model_opcount>' probe --cpus 0,1 > '${CMAKE_CURRENT_BINARY_DIR}/probe.json' && '${_py}' -c \"import json,sys; d=json.load(open(sys.argv[1])); assert all(d[k] > 0 for k in ('line_transfer_ns','line_stream_ns','lines_in_flight','memcpy_xcore_bytes_per_ns','memcpy_local_bytes_per_ns')), d\" '${CMAKE_CURRENT_BINARY_DIR}/probe.json' && '$<TARGET_FILE:mca_instr_driver>' --time scl64 1000 | grep -Eq '^ns_per_iteration [0-9.]+$' && ! '$<TARGET_FILE:model_opcount>' probe --cpus 0,0 2>/dev/null")
set_tests_properties(model_probe_runs PROPERTIES LABELS "unit;model" TIMEOUT 120
  ENVIRONMENT "MCX_NAMESPACE=${MCX_BUILD_TAG}_model_probe_runs")

# The operation counter runs the driver under valgrind: a sanitizer build
# cannot run under valgrind (ASan) or counts its own instrumentation (TSan),
# so those builds skip the two counting tests; the default build runs them.
if(CMAKE_C_FLAGS MATCHES "-fsanitize")
  set(_count_skip "echo 'SKIP: operation counts are taken on the uninstrumented build'; exit 77")
  add_test(NAME model_opcount_toy COMMAND sh -c "${_count_skip}")
else()
  add_test(NAME model_opcount_toy COMMAND ${_py} ${CMAKE_CURRENT_SOURCE_DIR}/model/test_opcount_toy.py $<TARGET_FILE:model_opcount>)
endif()
set_tests_properties(model_opcount_toy PROPERTIES LABELS "unit;model" TIMEOUT 120 SKIP_RETURN_CODE 77
  ENVIRONMENT "${_menv};MCX_NAMESPACE=${MCX_BUILD_TAG}_model_opcount_toy")

# The real exchange counted under lackey in a small configuration (message 24 B and scalar).
if(CMAKE_C_FLAGS MATCHES "-fsanitize")
  add_test(NAME model_count_quick COMMAND sh -c "${_count_skip}")
else()
add_test(NAME model_count_quick COMMAND sh -c
  "command -v valgrind >/dev/null || { echo 'SKIP: valgrind missing'; exit 77; }; '${_py}' '${PROJECT_SOURCE_DIR}/tools/model/opcount.py' count --quick --exchanges 50 --driver '$<TARGET_FILE:model_opcount>' --out '${CMAKE_CURRENT_BINARY_DIR}/opcounts_quick.json' && '${_py}' -c \"import json,sys; d=json.load(open(sys.argv[1])); r=d['counts']; assert len(r)==4 and all(x['send']['loads']+x['send']['stores']+x['send']['rmw']>0 and x['recv']['loads']>0 for x in r), r\" '${CMAKE_CURRENT_BINARY_DIR}/opcounts_quick.json'")
endif()
set_tests_properties(model_count_quick PROPERTIES LABELS "unit;model" TIMEOUT 300 SKIP_RETURN_CODE 77
  ENVIRONMENT "MCX_NAMESPACE=${MCX_BUILD_TAG}_model_count_quick")

# The command: a fixture bench JSON gives a table and model JSON; bad input is named.
add_test(NAME model_smoke_fixture COMMAND sh -c
  "'$<TARGET_FILE:mca>' model '${CMAKE_CURRENT_SOURCE_DIR}/fixtures/bench_small.json' --json '${CMAKE_CURRENT_BINARY_DIR}/model_smoke.json' | grep 'measured / predicted' >/dev/null && '${_py}' -c \"import json,sys; d=json.load(open(sys.argv[1])); assert d['schema']=='mca-model/1' and d['cells'] and d['predictions']\" '${CMAKE_CURRENT_BINARY_DIR}/model_smoke.json'")
set_tests_properties(model_smoke_fixture PROPERTIES LABELS "unit;model" TIMEOUT 120
  ENVIRONMENT "MCX_NAMESPACE=${MCX_BUILD_TAG}_model_smoke_fixture")
add_test(NAME model_rejects_bad_json COMMAND ${MCA_EXPECT} fail "not a mca bench result|not valid JSON" $<TARGET_FILE:mca> model ${PROJECT_SOURCE_DIR}/tests/topologies_bad/missing_comma.json)
add_test(NAME model_rejects_missing_file COMMAND ${MCA_EXPECT} 2 "cannot read bench result" $<TARGET_FILE:mca> model /nonexistent/bench.json)
set_tests_properties(model_rejects_bad_json model_rejects_missing_file PROPERTIES LABELS "unit;model")

# The report gains a model section from a model JSON.
add_test(NAME model_report_section COMMAND sh -c
  "'$<TARGET_FILE:mca>' report '${CMAKE_CURRENT_SOURCE_DIR}/fixtures/bench_small.json' --model '${CMAKE_CURRENT_BINARY_DIR}/model_smoke.json' -o '${CMAKE_CURRENT_BINARY_DIR}/report_model.html' && grep -q 'Performance model' '${CMAKE_CURRENT_BINARY_DIR}/report_model.html'")
set_tests_properties(model_report_section PROPERTIES LABELS "unit;model" DEPENDS model_smoke_fixture TIMEOUT 120)

# The stream model in the report: its inputs, the summary sentence and the regime column, from a bench
# result without peers (the report's summary must not need them).
add_test(NAME model_report_stream COMMAND sh -c
  "'$<TARGET_FILE:mca>' model '${CMAKE_CURRENT_SOURCE_DIR}/fixtures/model_stream.json' --json '${CMAKE_CURRENT_BINARY_DIR}/model_stream.model.json' >/dev/null && '$<TARGET_FILE:mca>' report '${CMAKE_CURRENT_SOURCE_DIR}/fixtures/model_stream.json' --model '${CMAKE_CURRENT_BINARY_DIR}/model_stream.model.json' -o '${CMAKE_CURRENT_BINARY_DIR}/report_stream.html' && grep -q 'Stream model: [0-9]* of [0-9]* two-core lock-free cells' '${CMAKE_CURRENT_BINARY_DIR}/report_stream.html' && grep -q 'regime (nearest)' '${CMAKE_CURRENT_BINARY_DIR}/report_stream.html' && grep -q 'lines in' '${CMAKE_CURRENT_BINARY_DIR}/report_stream.html'")
set_tests_properties(model_report_stream PROPERTIES LABELS "unit;model" TIMEOUT 120)
