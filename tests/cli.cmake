# SPDX-License-Identifier: BSD-3-Clause
# The mca command's conventions (tests/cli_check.sh): one grammar for every subcommand, --version, mca help CMD,
# strict numbers, output paths checked first, --json -, the JSON envelope,
# --timeout as a stall detector, Ctrl-C leaving nothing behind.
add_test(NAME mca_cli_conventions COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli_check.sh $<TARGET_FILE:mca>
  ${PROJECT_SOURCE_DIR}/tools/mca/topologies)
set_tests_properties(mca_cli_conventions PROPERTIES LABELS "unit;bench" TIMEOUT 300 RUN_SERIAL TRUE)
if(CMAKE_C_FLAGS MATCHES "-fsanitize=thread")
  set_tests_properties(mca_cli_conventions PROPERTIES ENVIRONMENT "MCX_CLI_TSAN=1")
endif()
# mca report and mca model on JSON they cannot use (tests/cli_bad_json.py writes
# it): one line and exit 2, never a traceback, never a page without a figure.
find_package(Python3 COMPONENTS Interpreter QUIET)
set(_cpy python3)
if(Python3_Interpreter_FOUND)
  set(_cpy ${Python3_EXECUTABLE})
endif()
add_test(NAME mca_cli_bad_json COMMAND ${_cpy} ${CMAKE_CURRENT_SOURCE_DIR}/cli_bad_json.py $<TARGET_FILE:mca>
  ${CMAKE_CURRENT_SOURCE_DIR}/fixtures)
set_tests_properties(mca_cli_bad_json PROPERTIES LABELS "unit;bench" TIMEOUT 600
  ENVIRONMENT "MCX_NAMESPACE=${MCX_BUILD_TAG}_mca_cli_bad_json")
