# SPDX-License-Identifier: BSD-3-Clause
# The partition fuzz test (tests/stress/stress_partition_fuzz.c) prints the
# stack of a node that dies: exported names need -rdynamic.
if(TARGET stress_partition_fuzz)
  target_link_options(stress_partition_fuzz PRIVATE -rdynamic)
  set_tests_properties(stress_partition_fuzz PROPERTIES TIMEOUT 300)
endif()
