/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the mca command finds its helpers. Installed, they sit at fixed places
 * relative to the binary (bin/ -> libexec/mca, share/mca), so an installed
 * tree can be moved; in the build tree CMake copies them beside the binary.
 * No build path is compiled in (reproducible builds).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mca_tool.h"

#ifndef MCA_BIN_TO_LIBEXEC
#define MCA_BIN_TO_LIBEXEC "../libexec/mca"
#endif
#ifndef MCA_BIN_TO_DATA
#define MCA_BIN_TO_DATA "../share/mca"
#endif

static int readable(const char *p) { return p && *p && access(p, R_OK) == 0; }

/* The directory of the running mca binary, "" when /proc is missing. */
static void exe_dir(char *dir, size_t cap)
{
  ssize_t n = readlink("/proc/self/exe", dir, cap - 1);
  dir[n > 0 ? n : 0] = 0;
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = 0;
  else
    dir[0] = 0;
}

int mca_tool_helper(const char *name, char *out, size_t cap)
{
  char dir[PATH_MAX];
  if (!out || cap == 0)
    return -1;
  exe_dir(dir, sizeof dir);
  if (!dir[0])
    return -1;
  snprintf(out, cap, "%s/%s/%s", dir, MCA_BIN_TO_LIBEXEC, name);
  if (readable(out))
    return 0;
  snprintf(out, cap, "%s/%s", dir, name);
  return readable(out) ? 0 : -1;
}

const char *mca_tool_topology_dir(void)
{
  static char path[PATH_MAX], real[PATH_MAX];
  char dir[PATH_MAX - 64];
  exe_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/%s/topologies", dir, MCA_BIN_TO_DATA);
  if (dir[0] && readable(path))
    return realpath(path, real) ? real : path;
  return "<prefix>/share/mca/topologies when installed (tools/mca/topologies in the sources)";
}
