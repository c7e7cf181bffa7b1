# SPDX-License-Identifier: BSD-3-Clause
# The header's version is the project's: the library, `mca --version`, the pkg-config file.
target_compile_definitions(unit_test_version PRIVATE MCA_EXPECT_VERSION="${PROJECT_VERSION}")
if(TARGET mca)
  add_test(NAME mca_version COMMAND mca --version)
  set_tests_properties(mca_version PROPERTIES LABELS unit
    PASS_REGULAR_EXPRESSION "^mca ${PROJECT_VERSION} \\(libmca ${PROJECT_VERSION}\\)")
endif()
add_test(NAME pkgconfig_version COMMAND grep -qx "Version: ${PROJECT_VERSION}" ${PROJECT_BINARY_DIR}/mca.pc)
set_tests_properties(pkgconfig_version PROPERTIES LABELS unit)
