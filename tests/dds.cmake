# SPDX-License-Identifier: BSD-3-Clause
# The DDS gateway (docs/dds.md) against Eclipse Cyclone DDS's Python binding
# (tests/dds/dds_interop.py). Skipped (77) where the gateway is not built or
# no python has the cyclonedds package: MCX_DDS_PYTHON names one, else the
# venv build/dds-venv (docs/dds.md says how it is made), else python3.
add_executable(dds_node ${CMAKE_CURRENT_SOURCE_DIR}/dds/dds_node.c)
target_compile_definitions(dds_node PRIVATE _GNU_SOURCE)
target_link_libraries(dds_node PRIVATE mca_static)
set(_ddspy "$ENV{MCX_DDS_PYTHON}")
if(NOT _ddspy AND EXISTS ${PROJECT_SOURCE_DIR}/build/dds-venv/bin/python)
  set(_ddspy ${PROJECT_SOURCE_DIR}/build/dds-venv/bin/python)
endif()
if(NOT _ddspy)
  set(_ddspy python3)
endif()
foreach(c config basic netns backpressure durable oversize restart restart_tl)
  if(MCX_WITH_DDS AND NOT CMAKE_CROSSCOMPILING)
    add_test(NAME dds_${c} COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/dds/dds_interop.py ${c} $<TARGET_FILE:mca>
             $<TARGET_FILE:dds_node> ${_ddspy} ${PROJECT_SOURCE_DIR}/idl/mcx_dds_msg.idl)
  else()
    add_test(NAME dds_${c} COMMAND sh -c "echo 'skipped: the DDS gateway is not built here (Cyclone DDS not found or a cross build; Debian: cyclonedds-dev cyclonedds-tools)'; exit 77")
  endif()
  set_tests_properties(dds_${c} PROPERTIES LABELS unit TIMEOUT 600 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
endforeach()
