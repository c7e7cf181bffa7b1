/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every mca subcommand does the same way: strict option values, CPU
 * lists and real-time priority, output paths checked before a long run,
 * `--json -`, the JSON envelope (docs/json.md), and leaving no partition or
 * message queue behind on Ctrl-C.
 *
 * Exit codes of every subcommand: 0 success, 1 a check or target failed,
 * 2 usage error (a bad option or value, an unreadable input, an output that
 * cannot be written), 3 not supported on this platform (a command or option
 * that needs what the OS lacks: "mca CMD: ... not supported on this platform (why)"). Every parser below prints one line
 * "mca CMD: --opt: expected ..., got 'x'" and returns -1 on a bad value.
 * A usage error is found before any work: no probe, no measurement, no
 * partition, no heavy import in a Python helper.
 */
#ifndef MCA_CLI_H
#define MCA_CLI_H

#include <stdio.h>

#define MCA_EXIT_OK 0
#define MCA_EXIT_FAIL 1
#define MCA_EXIT_USAGE 2
#define MCA_EXIT_UNSUPPORTED 3

/** A whole decimal integer in [min, max]: "3x", "", "-5" below a positive min, overflow are refused. */
int mca_parse_int(const char *cmd, const char *opt, const char *s, long long min, long long max, long long *out);
/** A whole number in [min, max] that may end in k/K (x1024), m/M (x1024^2) or g/G when @p suffixes. */
int mca_parse_size(const char *cmd, const char *opt, const char *s, unsigned long long min,
                   unsigned long long max, unsigned long long *out);
/** A decimal number (e.g. seconds) in [min, max]. */
int mca_parse_num(const char *cmd, const char *opt, const char *s, double min, double max, double *out);
/** --cpus LIST ("0,2,4-7"): online CPUs only; fills the list the measurement uses (bench_cpus). */
int mca_parse_cpus(const char *cmd, const char *s);
/** --prio N: a SCHED_FIFO priority 1..99. */
int mca_parse_prio(const char *cmd, const char *s, int *prio);
/** Puts the calling thread under SCHED_FIFO @p prio; prints why not (e.g. no CAP_SYS_NICE) and returns -1. */
int mca_set_prio(const char *cmd, int prio);

/*
 * The command line, one grammar for every subcommand (README, "The mca
 * command"): options in any order, before, between or after the operands;
 * "--opt VALUE" or "--opt=VALUE"; "-h" or "--help" anywhere; "--" ends the
 * options. An unknown option, a missing value, or a value given to an option
 * that takes none is one line "mca CMD: ..." on stderr, before any work.
 */
enum {
  MCA_OPT_FLAG,  /* takes no value */
  MCA_OPT_VALUE, /* takes the next argument, whatever it is */
  MCA_OPT_MAYBE  /* takes the next argument when it does not start with '-' */
};
/** One option of a subcommand; a table of them ends with {NULL}. */
typedef struct mca_opt {
  const char *name; /* "--json" */
  int takes;        /* MCA_OPT_FLAG, MCA_OPT_VALUE or MCA_OPT_MAYBE */
  int key;          /* what mca_opts_next returns for it: > 0 */
} mca_opt_t;
/** What mca_opts_next returns besides a key. */
enum { MCA_OPTS_END = 0, MCA_OPTS_OPERAND = -1, MCA_OPTS_HELP = -2, MCA_OPTS_ERROR = -3 };
typedef struct mca_opts {
  const char *cmd; /* in messages: "mca CMD: ..." */
  int argc;
  char **argv;  /* argv[0] is the subcommand's name */
  int i;        /* the next argument */
  int operands; /* after "--": every argument is an operand */
  const char *value; /* the option's value (NULL: none), or the operand */
  char name[40];     /* the option as given, without "=VALUE" */
} mca_opts_t;

/** Starts reading @p argv (argv[0] the subcommand's name) for subcommand @p cmd. */
void mca_opts_init(mca_opts_t *s, const char *cmd, int argc, char **argv);
/**
 * The next option's key (its value in s->value), MCA_OPTS_OPERAND (the operand
 * in s->value), MCA_OPTS_HELP, MCA_OPTS_END, or MCA_OPTS_ERROR after one line
 * on stderr (exit with MCA_EXIT_USAGE).
 */
int mca_opts_next(mca_opts_t *s, const mca_opt_t *table);
/** Prints "mca CMD: MESSAGE" on stderr; returns MCA_EXIT_USAGE. */
int mca_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * The options of a command that runs from a configuration file or makes its
 * own set-up to measure it (`mca bridge`, `mca dds`): `--config FILE`,
 * `--check FILE`, or `--bench` with the measurement's options. The command's
 * option table starts with MCA_RUN_OPTS (keys 'c' 'k' 'b' 's' 'N' 'r' 'R'
 * 'T' 'j'); its own options take other keys.
 */
typedef struct mca_run_opts {
  const char *config; /* --config or --check FILE */
  int check, bench;
  long long size, count, rtts, rounds, timeout_s;
  const char *json;   /* with --bench: NULL, a path or "-" */
  char bench_opt[40]; /* the first option given that only --bench takes */
} mca_run_opts_t;
#define MCA_RUN_OPTS                                                                                    \
  {"--config", MCA_OPT_VALUE, 'c'}, {"--check", MCA_OPT_VALUE, 'k'}, {"--bench", MCA_OPT_FLAG, 'b'},   \
      {"--size", MCA_OPT_VALUE, 's'}, {"--count", MCA_OPT_VALUE, 'N'}, {"--rtts", MCA_OPT_VALUE, 'r'},  \
      {"--rounds", MCA_OPT_VALUE, 'R'}, {"--timeout", MCA_OPT_VALUE, 'T'}, {"--json", MCA_OPT_VALUE, 'j'}
/** The defaults: 64-byte messages, 20,000 of them, 2,000 round trips in 5 rounds, 600 s. */
void mca_run_opts_init(mca_run_opts_t *o);
/**
 * Takes option @p k of @p s (from mca_opts_next) when it is one of
 * MCA_RUN_OPTS: 1 taken, 0 the command's own (any option other than
 * --config, --check and --bench is remembered as one only --bench takes), -1
 * after a usage error. @p max_rounds bounds --rounds.
 */
int mca_run_opt(const mca_opts_t *s, int k, mca_run_opts_t *o, long long max_rounds);
/**
 * The checks once every option is read: --bench or a configuration, bench
 * options only with --bench, enough round trips per round, a writable
 * --json. @p bench_makes says what --bench sets up ("bridges", "a gateway").
 * 0, or -1 after a usage error.
 */
int mca_run_opts_done(const mca_opts_t *s, const mca_run_opts_t *o, const char *bench_makes);

/**
 * Checks, before any work, that @p path can be written: "-" (standard
 * output) always; otherwise its directory exists and is writable and the path
 * is not a directory. Creates nothing. 0, or -1 after one line.
 */
int mca_check_output(const char *cmd, const char *opt, const char *path);
/**
 * For `--json -`: from now on the subcommand's table and messages (stdout)
 * go to stderr, so standard output carries only the JSON. Call once, before
 * printing anything.
 */
void mca_json_to_stdout(void);
/** Opens an output: "-" is the standard output saved by mca_json_to_stdout. NULL after a message. */
FILE *mca_output_open(const char *cmd, const char *path);
/** Closes what mca_output_open returned; -1 when writing failed (disk full). */
int mca_output_close(FILE *f);

/** Remembers the subcommand's arguments (argv[0] its name) for the envelope (main.c). */
void mca_cli_args(int argc, char **argv);
/** The command line as run ("mca bench --quick --json x.json"), shell-quoted where needed. */
const char *mca_command_line(void);
/**
 * Writes the opening of a result object: "{", then schema, date, command,
 * machine and build (docs/json.md), each followed by ",\n". The subcommand
 * writes its results next and closes the object.
 */
void mca_json_envelope(FILE *f, const char *schema);
/** The envelope's members as one JSON object (no schema), for the Python helpers ($MCA_JSON_ENVELOPE). */
char *mca_json_envelope_object(void);
/** A JSON string literal (quotes and escapes). */
void mca_json_str(FILE *f, const char *s);

/**
 * Ctrl-C (SIGINT), SIGTERM and SIGHUP: the forked children of this process
 * are killed, then the MCAPI partitions and message queues that only this
 * process and its children used are removed and named on stderr; exit 130
 * (128 + the signal). Forked children die of the signal themselves.
 */
void mca_cleanup_on_interrupt(const char *cmd);

/**
 * Removes the partitions (and their message queues) of this user whose
 * nodes were all this process, its children, or dead. Names each removed one
 * on @p log. Returns how many were removed. (cmd_domains.c)
 */
int mca_domains_remove_owned(const int *pids, int npids, FILE *log);

#endif
