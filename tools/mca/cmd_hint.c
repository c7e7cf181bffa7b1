/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca hint: the code parser of the next-semaphore scheme (docs/sem.md). The
 * work is done by tools/hint/hint.py (libclang), found through $MCA_HINT_PY,
 * or in libexec/mca next to the installed binary (beside the binary in the
 * build tree), as the other helpers are.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mca_tool.h"

static int readable(const char *p) { return p && *p && access(p, R_OK) == 0; }

int mca_cmd_hint(int argc, char **argv)
{
  /* hint.py reads every option (its --help describes them), before it imports libclang */
  if (argc < 2)
    return mca_usage_error("hint", "expected FILE.c... (mca hint --help)");
  char script[PATH_MAX] = "";
  const char *env = getenv("MCA_HINT_PY");
  if (readable(env))
    snprintf(script, sizeof script, "%s", env);
  else if (mca_tool_helper("hint.py", script, sizeof script))
    script[0] = 0;
  if (!readable(script)) {
    fprintf(stderr, "mca hint: cannot find hint.py (looked for $MCA_HINT_PY and libexec/mca "
                    "next to the mca binary)\n");
    return 2;
  }
  char **args = calloc((size_t)argc + 3, sizeof *args);
  if (!args)
    return 2;
  args[0] = "python3";
  args[1] = script;
  for (int i = 1; i < argc; i++)
    args[i + 1] = argv[i];
  /* the JSON envelope's members (docs/json.md), for hint.py's --json */
  char *env_obj = mca_json_envelope_object();
  if (env_obj)
    setenv("MCA_JSON_ENVELOPE", env_obj, 1);
  execvp("python3", args);
  perror("mca hint: python3");
  return 127;
}
