# SPDX-License-Identifier: BSD-3-Clause
# The layers of the library, checked on its object files with nm: no file
# uses a symbol of a file in a higher layer (tests/layering_check.sh has the
# table; docs/design.md the reasons). The list of objects comes from
# the target itself, so it follows the sources CMakeLists.txt selects.
if(CMAKE_NM)
  set(_mcx_layering_list ${CMAKE_CURRENT_BINARY_DIR}/layering_objects_$<CONFIG>.txt)
  file(GENERATE OUTPUT ${_mcx_layering_list}
       CONTENT "$<JOIN:$<TARGET_OBJECTS:mca_objects>,\n>\n")
  add_test(NAME layering_objects
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/layering_check.sh ${CMAKE_NM} ${_mcx_layering_list})
  set_tests_properties(layering_objects PROPERTIES LABELS unit TIMEOUT 60)
else()
  message(STATUS "tests: no nm found; layering_objects is skipped")
endif()
