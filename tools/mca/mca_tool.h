/* SPDX-License-Identifier: BSD-3-Clause */
/* The `mca` command's subcommands. Each lives in cmd_<name>.c. */
#ifndef MCA_TOOL_H
#define MCA_TOOL_H

typedef struct mca_subcommand {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name; NULL: not in this build */
  const char *unsupported;           /* why this platform cannot run it (run is NULL) */
} mca_subcommand_t;

int mca_cmd_demo(int argc, char **argv);
int mca_cmd_domains(int argc, char **argv);
int mca_cmd_bench(int argc, char **argv);
int mca_cmd_stress(int argc, char **argv);
int mca_cmd_report(int argc, char **argv);
int mca_cmd_coherence(int argc, char **argv);
int mca_cmd_sync(int argc, char **argv);
int mca_cmd_sem(int argc, char **argv);
int mca_cmd_model(int argc, char **argv);
int mca_cmd_hint(int argc, char **argv);
int mca_cmd_bridge(int argc, char **argv);
int mca_cmd_dds(int argc, char **argv);

#include <stddef.h>
/* Finds helper @p name (report.py, model.py, ...) in libexec/mca next to the
 * installed binary, or beside the binary in the build tree. 0: found. */
int mca_tool_helper(const char *name, char *out, size_t cap);
/* `mca bench --instr` (bench_instr.c): argv[0] is "--instr". */
int mca_bench_instr(int argc, char **argv);
/* `mca bridge --bench` (bench/core/bench_bridge.c): its options, read and
 * checked by `mca bridge` (cmd_bridge.c). */
#define MCA_BRIDGE_BENCH_MAX_ROUNDS 16
typedef struct mca_bridge_bench_opts {
  const char *transport; /* "ipc" or "tcp" */
  int netns;             /* each side in a network namespace of its own */
  long long size, count, rtts, rounds, timeout_s;
  const char *json; /* NULL, a path, or "-" (standard output) */
} mca_bridge_bench_opts_t;
int mca_bridge_bench(const mca_bridge_bench_opts_t *o);
/* The example topologies' directory for help texts. */
const char *mca_tool_topology_dir(void);

#endif
