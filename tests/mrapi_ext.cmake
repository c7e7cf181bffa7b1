# SPDX-License-Identifier: BSD-3-Clause
# MRAPI remote memory, metadata, delete rules and dead holders: the same test
# programs once more under the mca-2.0.3 profile (the first run is spec).
foreach(t unit_test_mrapi_ext unit_test_mrapi_ext_proc)
  if(TARGET ${t})
    add_test(NAME ${t}_mca203 COMMAND ${t})
    set_tests_properties(${t}_mca203 PROPERTIES LABELS unit TIMEOUT 300
      ENVIRONMENT "MCX_COMPAT=mca-2.0.3;MCX_NAMESPACE=${MCX_BUILD_TAG}_${t}_mca203")
  endif()
endforeach()
