/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca model: the performance model (docs/model.md). The work is done by
 * tools/model/model.py, found through $MCA_MODEL_PY, or in libexec/mca next
 * to the installed binary (beside the binary in the build tree).
 * The script is told where this binary is (--mca), so `--run` can call
 * `mca bench` and `--count` can find the model_opcount driver beside it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mca_tool.h"

static int readable(const char *p) { return p && *p && access(p, R_OK) == 0; }

static int usage(void)
{
  printf("usage: mca model BENCH.json [--json FILE|-] [--inputs FILE] [--sim] [--seed N]\n"
         "                 [--calibrate] [--opcounts FILE]\n"
         "       mca model --run [--json FILE|-] [--sim] [--seed N]\n"
         "       mca model --count [--quick] [--exchanges K] [--opcounts FILE]\n\n"
         "Predicts each bench cell's throughput and prints measured/predicted. Lock-free\n"
         "cells on two cores: a stream model from inputs measured on this machine (one\n"
         "cache-line transfer, lines in flight, memcpy bandwidth across cores and within a\n"
         "cache, the time of one hand-off on one core); within 0.5-2x the cell agrees,\n"
         "else the verdict is 'model does not apply' and says why. The other cells: the\n"
         "single-station ceiling (the memory operations of one exchange counted under\n"
         "valgrind lackey, tools/model/opcounts.json; the shared memory as one queueing\n"
         "station, exact mean-value analysis). docs/model.md.\n\n"
         "  --json FILE     write the model as JSON (docs/json.md envelope); '-': the JSON\n"
         "                  to stdout, the table to stderr\n"
         "  --inputs FILE   the stream model's inputs (a JSON with probe and handoff_ns, or\n"
         "                  a bench JSON carrying model_inputs); default: the bench JSON's\n"
         "                  model_inputs, else measured now\n"
         "  --run           run `mca bench --quick --no-peers --no-scale`, then measure the\n"
         "                  inputs (stored in that bench JSON) and model it\n"
         "  --sim           also run the SimPy simulation of the single-station network\n"
         "  --seed N        the simulation's random seed (default 1)\n"
         "  --calibrate     re-measure the hit / memory / RMW costs now\n"
         "  --opcounts FILE operation counts (default: tools/model/opcounts.json)\n"
         "  --count         re-count the operations under valgrind and re-calibrate\n"
         "  --quick         with --count: 24-byte messages and scalars only\n"
         "  --exchanges K   with --count: exchanges traced per type and mode (default 200)\n"
         "`mca report --model FILE` shows the result. Needs python3 (SimPy for --sim,\n"
         "valgrind for --count; scripts/deps.sh installs them).\n"
         "Exit status: 0 done, 2 usage error or an input that cannot be used (unreadable, not\n"
         "JSON, nested too deeply, not a bench result, a member missing or of the wrong type,\n"
         "no cell to model).\n");
  return MCA_EXIT_OK;
}

int mca_cmd_model(int argc, char **argv)
{
  /* The help is this text; every other option is model.py's, read before any work. */
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
      return usage();
  if (argc < 2)
    return mca_usage_error("model", "expected BENCH.json, --run or --count (mca model --help)");
  char script[PATH_MAX] = "", self[PATH_MAX - 32] = "";
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0)
    self[n] = 0;
  else
    self[0] = 0;
  const char *env = getenv("MCA_MODEL_PY");
  if (readable(env)) {
    snprintf(script, sizeof script, "%s", env);
  } else if (mca_tool_helper("model.py", script, sizeof script)) {
    script[0] = 0;
  }
  if (!readable(script)) {
    fprintf(stderr, "mca model: cannot find model.py (looked for $MCA_MODEL_PY and libexec/mca "
                    "next to the mca binary)\n");
    return 2;
  }
  char **args = calloc((size_t)argc + 5, sizeof *args);
  int k = 0;
  args[k++] = "python3";
  args[k++] = script;
  if (self[0]) {
    args[k++] = "--mca";
    args[k++] = self;
  }
  for (int i = 1; i < argc; i++)
    args[k++] = argv[i];
  /* the JSON envelope's members (docs/json.md), for model.py's --json */
  char *env_obj = mca_json_envelope_object();
  if (env_obj)
    setenv("MCA_JSON_ENVELOPE", env_obj, 1);
  execvp("python3", args);
  perror("mca model: python3");
  return 127;
}
