/* SPDX-License-Identifier: BSD-3-Clause */
/* mca: the libmca tool. `mca help` lists the subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mca_tool.h"
#include "mcx_version.h"

#ifndef MCA_VERSION
#define MCA_VERSION MCX_VERSION_STRING
#endif

#ifdef _WIN32
/* Windows (docs/porting.md): these commands need what Windows does not have. */
#define WIN_NS(fn, why) NULL, why
#else
#define WIN_NS(fn, why) fn, NULL
#endif

static const mca_subcommand_t subcommands[] = {
    {"demo", "exchange messages between threads and print what happened", mca_cmd_demo, NULL},
    {"domains", "list this user's domain partitions (nodes, endpoints, queues); --clean",
     WIN_NS(mca_cmd_domains, "it lists partitions in /dev/shm and their nodes in /proc; Windows cannot "
                             "list named mappings and has no /proc")},
    {"bench", "benchmark matrix of libmca and peer baselines (latency, throughput)", mca_cmd_bench, NULL},
    {"stress", "run a declarative topology and verify every item (order, loss, content)",
     WIN_NS(mca_cmd_stress, "its process nodes are fork()ed children and it kills them with signals; "
                            "Windows has neither fork() nor signals")},
    {"report", "turn the JSON results of these commands into one self-contained HTML page",
     WIN_NS(mca_cmd_report, "it runs its Python helper through a POSIX shell, which Windows has not")},
    {"coherence", "sequential vs shared vs private arrays: time and coherence counters",
     WIN_NS(mca_cmd_coherence, "it reads the hardware counters through Linux perf_event")},
    {"model", "performance model: predicted ceiling per type and mode, measured/predicted",
     WIN_NS(mca_cmd_model, "it runs its Python helper through a POSIX shell and counts operations "
                           "under valgrind, which Windows has not")},
    {"sync", "overhead of mutexes, events, semaphores, spinlocks, atomics (pinned, medians)",
     WIN_NS(mca_cmd_sync, "it measures System V and POSIX named semaphores and Linux futexes under "
                          "SCHED_FIFO; Windows has none of them")},
    {"sem", "next-semaphore hint vs wait-then-lock: time per acquire/release, context switches",
     WIN_NS(mca_cmd_sem, "it measures PI-futex semaphores and per-thread context switches "
                         "(getrusage RUSAGE_THREAD); Windows has neither")},
    {"bridge", "join this machine's domain to domains on other hosts over nng; --bench",
     WIN_NS(mca_cmd_bridge, "nng is not part of the Windows build")},
    {"dds", "MCAPI endpoints on DDS topics through Eclipse Cyclone DDS; --bench",
     WIN_NS(mca_cmd_dds, "Cyclone DDS is not part of the Windows build")},
    {"hint", "find blocking calls followed by a semaphore acquire; rewrite them into _then_lock",
     WIN_NS(mca_cmd_hint, "it runs its libclang Python helper through a POSIX shell, which Windows has not")},
};

/* A command this build cannot run: says so, and exits MCA_EXIT_UNSUPPORTED. */
static int unsupported(const mca_subcommand_t *c)
{
  fprintf(stderr, "mca %s: not supported on this platform (%s)\n", c->name, c->unsupported);
  return MCA_EXIT_UNSUPPORTED;
}

static int usage(FILE *out)
{
  fprintf(out, "usage: mca <command> [options]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
    fprintf(out, "  %-10s %s%s\n", subcommands[i].name, subcommands[i].summary,
            subcommands[i].run ? "" : " (not supported on this platform)");
  fprintf(out, "\n`mca help <command>` (or `mca <command> --help`) describes a command's options;\n"
               "`mca --version` prints the version of the tool and of the libmca it runs with.\n"
               "Exit status of every command: 0 success, 1 a check or target failed, 2 usage error,\n"
               "3 not supported on this platform.\n");
  return out == stderr ? 2 : 0;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return usage(stderr);
  if (!strcmp(argv[1], "help") && argc >= 3) { /* mca help CMD: that command's --help */
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
      if (!strcmp(argv[2], subcommands[i].name)) {
        char *args[] = {argv[2], "--help", NULL};
        if (!subcommands[i].run)
          return unsupported(&subcommands[i]);
        return subcommands[i].run(2, args);
      }
    fprintf(stderr, "mca help: unknown command '%s'\n", argv[2]);
    return usage(stderr);
  }
  if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
    return usage(stdout);
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
    printf("mca %s (libmca %s)\n", MCA_VERSION, mcx_version());
    return 0;
  }
  for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
    if (!strcmp(argv[1], subcommands[i].name)) {
      if (!subcommands[i].run)
        return unsupported(&subcommands[i]);
      mca_cli_args(argc - 1, argv + 1);
      return subcommands[i].run(argc - 1, argv + 1);
    }
  fprintf(stderr, "mca: unknown command '%s'\n", argv[1]);
  return usage(stderr);
}
