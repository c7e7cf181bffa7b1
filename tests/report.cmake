# SPDX-License-Identifier: BSD-3-Clause
# mca report: units, statistics and the first screen (no browser); the command
# as a user runs it; the page rendered in headless Chromium (skipped without it).
find_package(Python3 COMPONENTS Interpreter QUIET)
set(_rpy python3)
if(Python3_Interpreter_FOUND)
  set(_rpy ${Python3_EXECUTABLE})
endif()
set(_rdir ${CMAKE_CURRENT_SOURCE_DIR}/report)
set(_renv "MCA_REPORT_DIR=${PROJECT_SOURCE_DIR}/tools/report")

add_test(NAME report_unit COMMAND ${_rpy} ${_rdir}/test_report.py)
set_tests_properties(report_unit PROPERTIES LABELS "unit;bench" TIMEOUT 60 ENVIRONMENT "${_renv}")

add_test(NAME report_cli COMMAND ${_rpy} ${_rdir}/test_cli.py $<TARGET_FILE:mca>
  ${CMAKE_CURRENT_BINARY_DIR}/bench_smoke.json ${CMAKE_CURRENT_SOURCE_DIR}/fixtures ${CMAKE_CURRENT_BINARY_DIR}/model_smoke.json)
set_tests_properties(report_cli PROPERTIES LABELS "unit;bench" TIMEOUT 300
  DEPENDS "bench_smoke_json;model_smoke_fixture")

# The checker itself must catch overlapping labels.
add_test(NAME report_render_selftest COMMAND ${_rpy} ${_rdir}/render_check.py --self-test)
set_tests_properties(report_render_selftest PROPERTIES LABELS "unit;bench" TIMEOUT 180 SKIP_RETURN_CODE 77
  ENVIRONMENT "${_renv}")

# Every kind of result in one page, then a before/after page: rendered, checked.
set(_fx ${CMAKE_CURRENT_SOURCE_DIR}/fixtures)
set(_out ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME report_render_chromium COMMAND sh -c
  "'$<TARGET_FILE:mca>' report '${_out}/bench_smoke.json' '${_fx}/sync_quick.json' '${_fx}/sem_quick.json' '${_fx}/coherence_quick.json' --model '${_out}/model_smoke.json' -o '${_out}/report_all.html' && '${_rpy}' '${_rdir}/render_check.py' '${_out}/report_all.html' --screenshot '${_out}/report_all.png'")
# before/after: the smoke run against a copy whose streams are 1.5x faster (every sample)
add_test(NAME report_render_compare COMMAND sh -c
  "'${_rpy}' '${_rdir}/make_after.py' '${_out}/bench_smoke.json' '${_out}/bench_smoke_after.json' && '$<TARGET_FILE:mca>' report '${_out}/bench_smoke.json' '${_out}/bench_smoke_after.json' -o '${_out}/report_compare.html' && grep -q 'id=\"compare-fig\"' '${_out}/report_compare.html' && grep -Eq '<b>[1-9][0-9]* improved</b>' '${_out}/report_compare.html' && '${_rpy}' '${_rdir}/render_check.py' '${_out}/report_compare.html' --screenshot '${_out}/report_compare.png'")
set_tests_properties(report_render_chromium report_render_compare PROPERTIES LABELS "unit;bench" TIMEOUT 300
  SKIP_RETURN_CODE 77 DEPENDS "bench_smoke_json;model_smoke_fixture")
