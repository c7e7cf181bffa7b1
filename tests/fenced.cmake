# SPDX-License-Identifier: BSD-3-Clause
# The wake-up protocol's other form: with MCX_NO_MEMBARRIER set, notifiers
# fence instead of relying on the sleeper's membarrier (as on kernels, qemu-user
# and systems without it). The data-path stress programs run once more so.
foreach(n stress_messages stress_channels stress_mcapi_crash)
  if(TARGET ${n})
    add_test(NAME ${n}_fenced COMMAND ${n})
    set_tests_properties(${n}_fenced PROPERTIES LABELS stress TIMEOUT 300
      ENVIRONMENT "MCX_NAMESPACE=${MCX_BUILD_TAG}_${n}_fenced;MCX_NO_MEMBARRIER=1")
  endif()
endforeach()
