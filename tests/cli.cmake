# SPDX-License-Identifier: BSD-3-Clause
# The mca command's conventions (tests/cli_check.sh): --version, mca help CMD,
# strict numbers, output paths checked first, --json -, the JSON envelope,
# --timeout as a stall detector, Ctrl-C leaving nothing behind.
add_test(NAME mca_cli_conventions COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli_check.sh $<TARGET_FILE:mca>
  ${PROJECT_SOURCE_DIR}/tools/mca/topologies)
set_tests_properties(mca_cli_conventions PROPERTIES LABELS "unit;bench" TIMEOUT 300 RUN_SERIAL TRUE)
if(CMAKE_C_FLAGS MATCHES "-fsanitize=thread")
  set_tests_properties(mca_cli_conventions PROPERTIES ENVIRONMENT "MCX_CLI_TSAN=1")
endif()
