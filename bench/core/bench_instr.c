/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `mca bench --instr`: instruction counts of the data path's hand-offs under
 * callgrind, beside a bare per-slot-sequence ring, ck_ring and Boost's
 * spsc_queue (bench/instr/instr.py runs bench/instr/driver.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mca_tool.h"

int mca_bench_instr(int argc, char **argv)
{
  char script[PATH_MAX] = "", driver[PATH_MAX] = "";
  if (mca_tool_helper("instr.py", script, sizeof script)) {
    fprintf(stderr, "mca bench: --instr: cannot find instr.py (libexec/mca next to the mca binary)\n");
    return 2;
  }
  char **args = calloc((size_t)argc + 5, sizeof *args);
  if (!args)
    return 2;
  int k = 0;
  args[k++] = "python3";
  args[k++] = script;
  /* instr.py reads its options first, and says so when the driver is missing */
  if (!mca_tool_helper("mca_instr_driver", driver, sizeof driver)) {
    args[k++] = "--driver";
    args[k++] = driver;
  }
  for (int i = 1; i < argc; i++)
    args[k++] = argv[i];
  execvp("python3", args);
  perror("mca bench: --instr: python3");
  return 127;
}
