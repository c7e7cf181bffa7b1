/* SPDX-License-Identifier: BSD-3-Clause */
/* mca bench: what every run records about the machine and the build. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "bench_report.h"
#include "cli.h"
#include "ports/mcx_port.h"

#ifndef MCA_BUILD_COMMIT
#define MCA_BUILD_COMMIT "unknown"
#endif
#ifndef MCA_SOURCE_DIR
#define MCA_SOURCE_DIR "."
#endif
#ifndef MCA_BUILD_TYPE
#define MCA_BUILD_TYPE "unknown"
#endif
#ifndef MCA_BUILD_FLAGS
#define MCA_BUILD_FLAGS ""
#endif
#ifndef MCA_COMPILER
#define MCA_COMPILER "unknown"
#endif
#ifndef MCA_VERSION
#define MCA_VERSION "unknown"
#endif

static void trim(char *s)
{
  size_t n = strlen(s);
  while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
    s[--n] = 0;
}

void bench_machine_read(bench_machine_t *m)
{
  memset(m, 0, sizeof *m);
  snprintf(m->cpu, sizeof m->cpu, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[4096];
    while (fgets(line, sizeof line, f)) {
      if (!strncmp(line, "model name", 10) && !strcmp(m->cpu, "unknown")) {
        char *p = strchr(line, ':');
        if (p) {
          snprintf(m->cpu, sizeof m->cpu, "%s", p + 2);
          trim(m->cpu);
        }
      }
      if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor"))
        m->virtualized = 1;
    }
    fclose(f);
  }
  m->cpus = bench_ncpus();
  mcx_port_sysinfo_t u;
  mcx_port_sysinfo(&u);
  snprintf(m->kernel, sizeof m->kernel, "%s %s", u.os, u.arch);
  snprintf(m->platform, sizeof m->platform, "%s", u.platform);
  snprintf(m->os, sizeof m->os, "%s", u.os);
  snprintf(m->arch, sizeof m->arch, "%s", u.arch);
  snprintf(m->compiler, sizeof m->compiler, "%s", MCA_COMPILER);
  snprintf(m->flags, sizeof m->flags, "%s", MCA_BUILD_FLAGS);
  snprintf(m->build_type, sizeof m->build_type, "%s", MCA_BUILD_TYPE);
  /* The commit at run time when the source tree is at hand, else the one built. */
  snprintf(m->commit, sizeof m->commit, "%s", MCA_BUILD_COMMIT);
  m->commit_source = "build";
#ifndef _WIN32 /* Windows: no POSIX shell for popen; the commit built is recorded */
  FILE *g = popen("git -C '" MCA_SOURCE_DIR "' rev-parse HEAD 2>/dev/null", "r");
  if (g) {
    char b[80] = "";
    if (fgets(b, sizeof b, g) && strlen(b) >= 40) {
      trim(b);
      snprintf(m->commit, sizeof m->commit, "%.*s", (int)sizeof m->commit - 1, b);
      m->commit_source = "git";
    }
    pclose(g);
  }
  FILE *d = popen("git -C '" MCA_SOURCE_DIR "' status --porcelain --untracked-files=no 2>/dev/null | head -1", "r");
  if (d) {
    char b[8] = "";
    m->dirty = fgets(b, sizeof b, d) != NULL;
    pclose(d);
  }
#endif
  time_t t = time(NULL);
  strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
}

/* "name": "value" for each pair, separated by ", ". */
static void string_members(FILE *f, const char *const (*kv)[2], size_t n)
{
  for (size_t i = 0; i < n; i++) {
    fprintf(f, "%s\"%s\": ", i ? ", " : "", kv[i][0]);
    mca_json_str(f, kv[i][1]);
  }
}

void bench_machine_json(FILE *f, const bench_machine_t *m, int cpus)
{
  const char *const cpu[][2] = {{"cpu", m->cpu}};
  const char *const system[][2] = {
    {"kernel", m->kernel}, {"platform", m->platform}, {"os", m->os}, {"arch", m->arch}};
  const char *const build[][2] = {{"version", MCA_VERSION}, {"compiler", m->compiler}, {"flags", m->flags},
                                  {"build_type", m->build_type}, {"commit", m->commit},
                                  {"commit_source", m->commit_source}};
  fputs("\"machine\": {", f);
  string_members(f, cpu, 1);
  fprintf(f, ", \"cpus\": %d, \"virtualized\": %s, ", cpus, m->virtualized ? "true" : "false");
  string_members(f, system, sizeof system / sizeof *system);
  fputs("},\n\"build\": {", f);
  string_members(f, build, sizeof build / sizeof *build);
  fprintf(f, ", \"dirty\": %s}", m->dirty ? "true" : "false");
}
