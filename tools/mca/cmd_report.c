/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca report: turns `mca bench --json` results into one self-contained HTML
 * page (plots embedded as PNG). The work is done by tools/report/report.py,
 * found through $MCA_REPORT_PY, or in libexec/mca next to the installed binary
 * (beside the binary in the build tree).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mca_tool.h"

static int readable(const char *p) { return p && *p && access(p, R_OK) == 0; }

int mca_cmd_report(int argc, char **argv)
{
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    FILE *o = argc < 2 ? stderr : stdout;
    fprintf(o, "usage: mca report RESULT.json [AFTER.json] [-o REPORT.html] [--model MODEL.json]\n\n"
               "Writes one self-contained HTML page with plots (matplotlib): throughput per\n"
               "matrix cell, latency distributions, the lock-free/global speedup bubble chart,\n"
               "the multicore penalty table, size sweeps in MB/s, peers beside libmca, the\n"
               "targets, and with two files a before/after comparison; with --model (or a\n"
               "sibling <stem>.model.json) the performance model's curves and ratios. Default output:\n"
               "report.html. Needs python3 with matplotlib (scripts/deps.sh installs it).\n");
    return argc < 2 ? 2 : 0;
  }
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
  char **args = calloc((size_t)argc + 3, sizeof *args);
  args[0] = "python3";
  args[1] = script;
  for (int i = 1; i < argc; i++)
    args[i + 1] = argv[i];
  execvp("python3", args);
  perror("mca report: python3");
  return 127;
}
