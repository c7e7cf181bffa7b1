# SPDX-License-Identifier: BSD-3-Clause
# Man pages: one per subcommand, each from its help text.
if(TARGET manpages)
  add_test(NAME mca_manpages COMMAND sh -c
    "n=0; for c in $('$<TARGET_FILE:mca>' help | sed -n 's/^  \\([a-z][a-z-]*\\) .*/\\1/p'); do grep -q \"usage: mca $c\" '${CMAKE_BINARY_DIR}/tools/mca/man1/mca-'$c.1 || { echo \"no man page for mca $c\"; exit 1; }; n=$((n+1)); done; grep -q 'mca <command>' '${CMAKE_BINARY_DIR}/tools/mca/man1/mca.1' && echo \"$n subcommand pages\" && [ $n -ge 9 ]")
  set_tests_properties(mca_manpages PROPERTIES LABELS unit)
endif()
