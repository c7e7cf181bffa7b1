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

int mca_cmd_model(int argc, char **argv)
{
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    FILE *o = argc < 2 ? stderr : stdout;
    fprintf(o, "usage: mca model BENCH.json [--json FILE] [--sim] [--calibrate] [--opcounts FILE]\n"
               "       mca model --run [--json FILE] [--sim]\n"
               "       mca model --count [--quick] [--opcounts FILE]\n\n"
               "Predicts the throughput ceiling of each exchange type and locking mode from\n"
               "the memory operations one exchange costs (counted from the implementation\n"
               "under valgrind lackey, cached in tools/model/opcounts.json) and this machine's\n"
               "costs (cache-line round trip L from the bench JSON, hit / memory / RMW costs),\n"
               "with the shared memory as one queueing station: exact mean-value analysis and\n"
               "a SimPy simulation (--sim). Prints measured/predicted per bench cell: at 0.8\n"
               "or above, further data-path work buys little; below, the gap is named.\n"
               "--run runs `mca bench --quick --no-sweep` first; --count re-counts and\n"
               "re-calibrates (needs valgrind). `mca report --model FILE` plots the result.\n"
               "Needs python3 (SimPy for --sim; scripts/deps.sh installs it).\n");
    return argc < 2 ? 2 : 0;
  }
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
