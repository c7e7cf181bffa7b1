/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca report: turns the JSON results of the mca subcommands into one
 * self-contained HTML page (Plotly figures embedded). The work is done by
 * tools/report/report.py (templates and figure code beside it),
 * found through $MCA_REPORT_PY, or in libexec/mca next to the installed binary
 * (beside the binary in the build tree).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mca_tool.h"

#ifndef MCA_VERSION
#define MCA_VERSION "unknown"
#endif

static int readable(const char *p) { return p && *p && access(p, R_OK) == 0; }

int mca_cmd_report(int argc, char **argv)
{
  char script[PATH_MAX] = "";
  const char *env = getenv("MCA_REPORT_PY");
  if (readable(env)) {
    snprintf(script, sizeof script, "%s", env);
  } else if (mca_tool_helper("report.py", script, sizeof script)) {
    script[0] = 0;
  }
  if (!readable(script)) {
    fprintf(stderr, "mca report: cannot find report.py (looked for $MCA_REPORT_PY and libexec/mca "
                    "next to the mca binary)\n");
    return 2;
  }
  /* report.py parses every option (its --help describes them) */
  char **args = calloc((size_t)argc + 3, sizeof *args);
  if (!args)
    return 1;
  args[0] = "python3";
  args[1] = script;
  for (int i = 1; i < argc; i++)
    args[i + 1] = argv[i];
  setenv("MCA_VERSION", MCA_VERSION, 1);
  execvp("python3", args);
  fprintf(stderr, "mca report: cannot run python3: %s (scripts/deps.sh installs it)\n", strerror(errno));
  return 2;
}
