/* SPDX-License-Identifier: BSD-3-Clause */
/* mca bench: the results of a run (cells, samples, derived figures) and their output. */
#ifndef MCA_BENCH_REPORT_H
#define MCA_BENCH_REPORT_H

#include <stdio.h>

#include "bench.h"

#define BENCH_MAX_REPEAT 32
#define BENCH_NQ 13 /* quantiles stored per ping-pong sample */
extern const double bench_quantiles[BENCH_NQ];

typedef struct bench_machine {
  char cpu[128];
  int cpus;
  int virtualized;
  char kernel[400];
  char platform[32], os[128], arch[32]; /* "linux", "windows (wine)"...; name and release; machine */
  char compiler[64];
  char flags[256];
  char build_type[32];
  char commit[64];
  const char *commit_source;
  int dirty;
  char date[32];
} bench_machine_t;

/* A sample is slow (excluded from every figure) when its L exceeds this
 * multiple of the run's median L, or when its two L probes differ by more. */
#define BENCH_SLOW_FACTOR 1.5

typedef struct bench_sample {
  int status;
  double L_before, L_after; /* ns, batch-timed like the subjects */
  double L;                 /* the larger of the two: the sample's L */
  int mode_flip;            /* the two probes differ by more than BENCH_SLOW_FACTOR */
  int slow;                 /* excluded: mode_flip, or L > BENCH_SLOW_FACTOR x the run's median L */
  int has_rtt, has_stream;
  /* ping-pong, batch pass: median over batches of ns per round trip, and the fastest batch */
  uint64_t batch, nbatch;
  double rtt_batch, rtt_batch_min;
  /* ping-pong, per-round pass: the distribution (bench_hist_t) and its quantiles */
  uint64_t rtt_n;
  double rtt_min, rtt_p50, rtt_p99, rtt_p999, rtt_p9999, rtt_max, rtt_mean;
  double q[BENCH_NQ];
  bench_hist_t *hist; /* malloc'd; merged into the cell's when clean */
  uint64_t st_n;
  double st_elapsed_ns, items_s, mb_s;
} bench_sample_t;

typedef struct bench_stat3 {
  double med, lo, hi;
  int n;
} bench_stat3_t;

typedef struct bench_cell {
  char id[96];
  const char *section;   /* "matrix" | "sweep" */
  const char *subject;   /* "libmca" or the peer's name */
  const char *kind;      /* "libmca" | "peer" */
  const char *type;      /* message | packet | scalar | "" (peers) */
  const char *locking;   /* lockfree | global | "" */
  const char *wait;      /* spin | block | "" */
  const char *placement; /* onecore | none | spread */
  const char *process;   /* in | cross */
  const char *transport; /* shm | pmq | "" */
  const char *consume;   /* copy: copied out, then checksummed; sum: checksummed in place */
  int inplace;           /* consume == "sum" */
  size_t size;
  const bench_ops_t *ops;
  bench_cfg_t cfg;
  int status; /* BENCH_OK, BENCH_NA, BENCH_ERR */
  char note[200];
  char hpc[2][2][480]; /* --hpc: [ping-pong | stream][sender | receiver] counters per item */
  int nsamples;
  bench_sample_t s[BENCH_MAX_REPEAT];
  /* summaries over the clean samples (median, min, max) */
  bench_stat3_t rtt, rtt_xL;                               /* batch pass; rtt / L of the sample */
  bench_stat3_t rtt_p50, rtt_p99, rtt_p999, rtt_min, rtt_p50_xL; /* per-round pass */
  bench_stat3_t items_s, mb_s, L;
  int flips;
  int nslow, reruns, unstable; /* samples excluded as slow, extra samples run, too few clean */
  bench_hist_t *hist;          /* every round trip of the clean samples (NULL: none) */
} bench_cell_t;

typedef struct bench_target {
  char name[96];
  char detail[200];
  double value, limit;
  const char *op;   /* "<=" or ">=" */
  const char *unit; /* "xL", "items/s", "x", "GB/s" */
  const char *result; /* PASS | MISS | n/a */
} bench_target_t;

/* The figures bench_derive() computes from the cells: what each compares is
 * its kind, and each kind has fields of its own (their JSON names, written by
 * bench_write_json: docs/benchmarks.md, "derived"). NaN: a cell it needs was
 * not measured or failed. */
typedef enum bench_derived_kind {
  BENCH_DERIVED_SPEEDUP, /* lock-free against a locking mode, per matrix cell */
  BENCH_DERIVED_PENALTY, /* more than one core against one, per type and locking mode */
  BENCH_DERIVED_RATIO,   /* a libmca cell against the physical limit and the best peer */
  BENCH_DERIVED_KINDS
} bench_derived_kind_t;

typedef struct bench_speedup {
  double throughput_ratio;     /* lock-free items/s over locked items/s */
  double rtt_ratio;            /* locked RTT over lock-free RTT */
  double lockfree_items_per_s; /* the lock-free cell's throughput */
  const char *against;         /* the locking mode: "global" | "kernel" */
  double locked_items_per_s;   /* the locked cell's throughput */
  double global_items_per_s;   /* locked_items_per_s against "global", NaN against "kernel" */
} bench_speedup_t;

typedef struct bench_penalty {
  double spread_over_onecore;  /* throughput, spread placement over one core */
  double none_over_onecore;    /* throughput, no affinity over one core */
  double onecore_items_per_s, spread_items_per_s;
} bench_penalty_t;

typedef struct bench_ratio {
  double throughput_over_ideal;     /* over the ideal ring of the same placement and size */
  double rtt_over_L;                /* RTT over the cache-line round trip of the same sample */
  double throughput_over_best_peer; /* over the real peer with the most items/s */
  double rtt_over_best_peer;        /* over the real peer with the shortest RTT */
  const char *best_peer;            /* the peer with the most items/s; NULL: none measured */
} bench_ratio_t;

typedef struct bench_derived {
  bench_derived_kind_t kind;
  char key[96]; /* speedup: type.placement.process.transport.size; penalty: type.locking.size; ratio: the cell's id */
  union {       /* the one of kind */
    bench_speedup_t speedup;
    bench_penalty_t penalty;
    bench_ratio_t ratio;
  };
} bench_derived_t;

/* The state-message row (bench_state.c): one per locking mode. */
typedef struct bench_state {
  const char *locking;
  int failed;
  char note[120];
  bench_stat3_t writes_per_s, reads_per_s, ns_per_read, retries_per_read;
  double msg_items_per_s, msg_rtt_ns; /* the FIFO message cell of the same run, for comparison */
} bench_state_t;

typedef struct bench_results {
  bench_machine_t machine;
  const char *argv_line;
  int repeat, quick, smoke;
  double target_ms;
  bench_cell_t *cells;
  int ncells;
  bench_target_t targets[64];
  int ntargets;
  bench_derived_t *derived;
  int nderived, cap_derived;
  double *Ls;
  int nL, capL;
  double wall_s;
  char probe_chan[200], probe_xproc[200], probe_pmq[200];
  int have_pkt, have_scl, have_xproc, have_pmq;
  bench_state_t state[2];
  int nstate;
  double L_median;       /* over every probe of the run: what `slow` is judged against */
  int min_clean;         /* clean samples a cell needs for a figure */
  struct bench_scale *scale; /* the scaling and contention matrix (bench_scale.c), or NULL */
} bench_results_t;

void bench_machine_read(bench_machine_t *m);
/** The "machine" and "build" members of a JSON result (docs/json.md), @p cpus
 * as the machine's CPU count; no separator before or after. */
void bench_machine_json(FILE *f, const bench_machine_t *m, int cpus);
/** Marks slow samples against @p L_median; returns how many clean samples @p c has. */
int bench_classify(bench_cell_t *c, double L_median);
void bench_summarize(bench_cell_t *c);
void bench_derive(bench_results_t *r);
void bench_print_table(FILE *out, const bench_results_t *r);
int bench_write_json(const char *path, const bench_results_t *r);
bench_cell_t *bench_find(bench_results_t *r, const char *section, const char *subject,
                         const char *type, const char *locking, const char *wait,
                         const char *placement, const char *process, const char *transport,
                         size_t size);
/** Runs the state-message row (both locking modes), @p repeat samples of @p ms each. */
void bench_state_run(bench_results_t *r, int repeat, double ms);
void bench_state_print(FILE *out, const bench_results_t *r);
/** --hpc: counters per item exchanged, per cell and side. */
void bench_hpc_print(FILE *out, const bench_results_t *r);
void bench_state_json(FILE *f, const bench_results_t *r);
/** The scaling and contention matrix (bench_scale.c): @p level 0 smoke, 1 quick, 2 full. */
void bench_scale_run(bench_results_t *r, int level, int repeat, int progress);
void bench_scale_print(FILE *out, const bench_results_t *r);
void bench_scale_json(FILE *f, const bench_results_t *r);
void bench_scale_free(bench_results_t *r);
#endif
