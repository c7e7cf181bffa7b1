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

static const mca_subcommand_t subcommands[] = {
    {"demo", "exchange messages between threads and print what happened", mca_cmd_demo},
    {"domains", "list this user's domain partitions (nodes, endpoints, queues); --clean", mca_cmd_domains},
    {"bench", "benchmark matrix of libmca and peer baselines (latency, throughput)", mca_cmd_bench},
    {"stress", "run a declarative topology and verify every item (order, loss, content)", mca_cmd_stress},
    {"report", "turn the JSON results of these commands into one self-contained HTML page", mca_cmd_report},
    {"coherence", "sequential vs shared vs private arrays: time and coherence counters", mca_cmd_coherence},
    {"model", "performance model: predicted ceiling per type and mode, measured/predicted", mca_cmd_model},
    {"sync", "overhead of mutexes, events, semaphores, spinlocks, atomics (pinned, medians)", mca_cmd_sync},
    {"sem", "next-semaphore hint vs wait-then-lock: time per acquire/release, context switches", mca_cmd_sem},
    {"bridge", "join this machine's domain to domains on other hosts over nng; --bench", mca_cmd_bridge},
    {"hint", "find blocking calls followed by a semaphore acquire; rewrite them into _then_lock", mca_cmd_hint},
};

static int usage(FILE *out)
{
  fprintf(out, "usage: mca <command> [options]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
    fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
  fprintf(out, "\n`mca help <command>` (or `mca <command> --help`) describes a command's options;\n"
               "`mca --version` prints the version of the tool and of the libmca it runs with.\n"
               "Exit status of every command: 0 success, 1 a check or target failed, 2 usage error.\n");
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
      mca_cli_args(argc - 1, argv + 1);
      return subcommands[i].run(argc - 1, argv + 1);
    }
  fprintf(stderr, "mca: unknown command '%s'\n", argv[1]);
  return usage(stderr);
}
