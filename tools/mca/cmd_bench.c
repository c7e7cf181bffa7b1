/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mca bench: the seed-000 matrix (locking mode x exchange type x placement x
 * in/cross-process x transport), a payload-size sweep, and peer baselines,
 * all measured by one harness in one run. See docs/benchmarks.md.
 *
 * Cells that share a placement and a size form a group; within a group the
 * repeats are interleaved (repeat 1 of every cell, then repeat 2, ...), so a
 * slow-mode phase of the host hits libmca and its peers alike. The cache-line
 * round trip L is measured before and after every sample.
 */
#ifdef _WIN32
#include "ere_lite.h" /* no <regex.h> in the C runtime of Windows */
#else
#include <regex.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "bench_report.h"
#include "mca_tool.h"
#include "mcapi.h"
#include "mcx.h"

typedef struct opts {
  int quick, smoke, repeat, progress;
  const char *json;
  const char *only;
  regex_t only_re;
  size_t sizes[32];
  int nsizes;
  int no_sweep, no_peers, no_scale, hpc;
  const char *cpus;
} opts_t;

static const char *const PLACES[] = {"onecore", "none", "spread"};

static const char *lock_name(int lock)
{
  return lock == MCX_LOCKING_GLOBAL ? "global" : lock == MCX_LOCKING_KERNEL ? "kernel" : "lockfree";
}

static void usage(FILE *o)
{
  fprintf(o,
          "usage: mca bench [--quick|--smoke] [--repeat N] [--json FILE] [--only REGEX]\n"
          "                 [--sizes LIST] [--cpus LIST] [--no-sweep] [--no-peers] [--no-scale]\n"
          "                 [--no-progress] [--hpc] [--prio N]\n"
          "       mca bench --instr [--count N] [--modes LIST] [--json FILE]\n"
          "       mca bench --python [--quick] [--repeat N] [--mode abi|api|both] [--instr] [--json FILE]\n\n"
          "Measures libmca (messages, packets, scalars; lock-free, global lock and kernel\n"
          "semaphore; one core, no affinity, one thread per core; in-process and\n"
          "cross-process; shm and pmq) and peer baselines in the same run: ping-pong round\n"
          "trip (batch-timed like L, plus p50/p99/p99.9/p99.99/max of every round trip) and\n"
          "one-way throughput, each repeated, median with min-max over the samples not\n"
          "taken in the host's slow mode; then the scaling and contention matrix (P pairs,\n"
          "N:1 fan-in, mixed traffic, per locking mode). Prints a table, PASS/MISS lines for\n"
          "the performance targets, and with --json every sample.\n\n"
          "  --quick        whole matrix in under two minutes (3 repeats, short samples)\n"
          "  --smoke        one repeat, tiny samples: checks that everything runs\n"
          "  --repeat N     samples per cell (default 5)\n"
          "  --json FILE    write every sample and the derived figures (docs/benchmarks.md);\n"
          "                 '-': the JSON to stdout, the table to stderr\n"
          "  --only REGEX   run only cells whose id matches (e.g. 'msg\\.lockfree|peer\\.pipe')\n"
          "  --sizes LIST   payload sizes of the sweep, bytes, comma separated (k suffix ok)\n"
          "  --cpus LIST    CPUs to use, e.g. 0,1 or 0-7 (default: every CPU this process may\n"
          "                 run on); 'spread' and L use the first two, scaling uses them all\n"
          "  --prio N       run every thread under SCHED_FIFO priority N (1-99; default: the\n"
          "                 normal scheduler; needs CAP_SYS_NICE or an rtprio limit)\n"
          "  --no-sweep     skip the payload-size sweep\n"
          "  --no-peers     skip the peer baselines (libmca cells only)\n"
          "  --no-scale     skip the scaling and contention matrix\n"
          "  --no-progress  no progress line on stderr (the default when stderr is not a terminal)\n"
          "  --hpc          count each side's thread with the performance counters that open\n"
          "                 here (mcx_hpc_*) and print them per item exchanged\n"
          "  --instr        instead of timing: instructions and locked instructions per\n"
          "                 hand-off under callgrind (needs valgrind), libmca per locking\n"
          "                 mode beside a bare per-slot-sequence ring, ck_ring and Boost;\n"
          "                 `mca bench --instr --help` lists its options\n"
          "  --python       instead: the Python cells, a 24-byte round trip through the mcapi\n"
          "                 package (Python and C peers) beside multiprocessing.Pipe and Queue;\n"
          "                 `mca bench --python --help` lists its options (docs/python.md)\n"
          "Ctrl-C stops the forked nodes and removes the partitions the run made.\n"
          "Exit status: 0 done, 1 a cell failed or the JSON could not be written, 2 usage error,\n"
          "3 not supported on this platform (--instr and --prio on Windows).\n");
}

static int parse_sizes(opts_t *o, const char *s)
{
  o->nsizes = 0;
  while (*s && o->nsizes < 32) {
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s)
      return -1;
    if (*end == 'k' || *end == 'K')
      v *= 1024, end++;
    if (v < 1 || v > 65536)
      return -1;
    o->sizes[o->nsizes++] = v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',')
      return -1;
  }
  return o->nsizes ? 0 : -1;
}

/* ---- the plan */
typedef struct plan {
  bench_results_t *r;
  opts_t *o;
  int cap;
} plan_t;

static const char *tname(int t) { return t == 'm' ? "message" : t == 'p' ? "packet" : "scalar"; }
static const char *tshort(int t) { return t == 'm' ? "msg" : t == 'p' ? "pkt" : "scl"; }

static bench_cell_t *add(plan_t *p, bench_cell_t *proto)
{
  if (p->o->only && regexec(&p->o->only_re, proto->id, 0, NULL, 0))
    return NULL;
  if (p->r->ncells == p->cap) {
    p->cap = p->cap ? p->cap * 2 : 64;
    p->r->cells = realloc(p->r->cells, (size_t)p->cap * sizeof(bench_cell_t));
  }
  bench_cell_t *c = &p->r->cells[p->r->ncells++];
  *c = *proto;
  return c;
}

static void add_libmca_as(plan_t *p, const char *section, int type, int lock, int block, int place,
                          int xproc, int pmq, size_t size, int msg_inplace, int claim, int build)
{
  bench_cell_t c;
  memset(&c, 0, sizeof c);
  c.section = section;
  c.subject = "libmca";
  c.kind = "libmca";
  c.type = tname(type);
  c.locking = lock_name(lock);
  c.wait = block ? "block" : "spin";
  /* packets are received zero-copy and checksummed in place; everything else
   * is copied out by its API and then checksummed */
  c.inplace = type == 'p' || msg_inplace; /* messages: mcx_msg_recv_inplace */
  c.consume = c.inplace ? "sum" : "copy";
  c.placement = PLACES[place];
  c.process = xproc ? "cross" : "in";
  c.transport = pmq ? "pmq" : "shm";
  c.size = size;
  c.ops = &bench_libmca_ops;
  c.cfg.type = type;
  c.cfg.locking = lock;
  c.cfg.transport = pmq;
  c.cfg.blocking_wait = block;
  c.cfg.claim = claim;
  c.cfg.build = build;
  if (!strcmp(section, "sweep"))
    snprintf(c.id, sizeof c.id, "sweep.%s.%s%s%s.%s.%zuB.%s", tshort(type), c.locking,
             claim ? ".claim" : "", build ? ".build" : "", c.placement, size, c.consume);
  else
    snprintf(c.id, sizeof c.id, "%s.%s%s.%s.%s.%s.%zuB.%s", tshort(type), c.locking,
             block ? ".block" : "", c.placement, c.process, c.transport, size, c.consume);
  add(p, &c);
}

/* What this build cannot do is known from the probes, before any sample: no
 * thread is started for it. */
static void mark_unavailable(bench_results_t *r)
{
  for (int i = 0; i < r->ncells; i++) {
    bench_cell_t *c = &r->cells[i];
    if (c->ops != &bench_libmca_ops)
      continue;
    const char *why = NULL;
    if ((c->cfg.type == 'p' && !r->have_pkt) || (c->cfg.type == 's' && !r->have_scl))
      why = r->probe_chan;
    else if (!strcmp(c->process, "cross") && !r->have_xproc)
      why = r->probe_xproc;
    else if (c->cfg.transport && !r->have_pmq)
      why = r->probe_pmq;
    if (why) {
      c->status = BENCH_NA;
      snprintf(c->note, sizeof c->note, "%s", why);
    }
  }
}

static void add_libmca(plan_t *p, const char *section, int type, int lock, int block, int place,
                       int xproc, int pmq, size_t size)
{
  add_libmca_as(p, section, type, lock, block, place, xproc, pmq, size, 0, 0, 0);
}

static void add_peer(plan_t *p, const char *section, const bench_ops_t *ops, int place, size_t size)
{
  if (ops->max_size && size > ops->max_size)
    return;
  bench_cell_t c;
  memset(&c, 0, sizeof c);
  c.section = section;
  c.subject = ops->name;
  c.kind = "peer";
  c.type = c.locking = c.wait = c.transport = "";
  c.placement = PLACES[place];
  c.process = "in";
  c.consume = "copy";
  c.size = size;
  c.ops = ops;
  if (!strcmp(section, "sweep"))
    snprintf(c.id, sizeof c.id, "sweep.peer.%s.%s.%zuB.copy", ops->name, c.placement, size);
  else
    snprintf(c.id, sizeof c.id, "peer.%s.%s.%zuB.copy", ops->name, c.placement, size);
  if (ops->unavailable) {
    c.status = BENCH_NA;
    snprintf(c.note, sizeof c.note, "%s", ops->unavailable);
  }
  add(p, &c);
}

static const bench_ops_t *const PEERS[] = {
    &bench_peer_ideal,    &bench_peer_boost,    &bench_peer_ck,       &bench_peer_mutex,
    &bench_peer_pipe,     &bench_peer_socket,   &bench_peer_mqueue,   &bench_peer_zmq_inproc,
    &bench_peer_zmq_ipc,  &bench_peer_nng_inproc, &bench_peer_nng_ipc, &bench_peer_iceoryx,
    &bench_peer_yield,    &bench_peer_futex};
#define NPEERS (int)(sizeof PEERS / sizeof PEERS[0])

/* ---- running */
static uint32_t next_domain = 1000;

static void timing(const opts_t *o, bench_ctx_t *c)
{
  if (o->smoke) {
    c->target_ns = 1000000;
    c->warm = c->mode == BENCH_PINGPONG ? 20 : 100;
    c->n_min = c->mode == BENCH_PINGPONG ? 50 : 200;
  } else if (o->quick) {
    c->target_ns = 20000000;
    c->warm = c->mode == BENCH_PINGPONG ? 200 : 2000;
    c->n_min = c->mode == BENCH_PINGPONG ? 400 : 2000;
  } else {
    c->target_ns = 100000000;
    c->warm = c->mode == BENCH_PINGPONG ? 2000 : 20000;
    c->n_min = c->mode == BENCH_PINGPONG ? 2000 : 20000;
  }
}

const double bench_quantiles[BENCH_NQ] = {0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100};

static double qtile(const uint64_t *v, uint64_t n, double q)
{
  if (!n)
    return 0;
  double pos = q / 100.0 * (double)(n - 1);
  uint64_t i = (uint64_t)pos;
  return (double)v[i < n ? i : n - 1];
}

static int cpus_for(int place, int *cpu)
{
  int n = bench_ncpus();
  if (place == 0) /* one core */
    cpu[0] = cpu[1] = bench_cpu(0);
  else if (place == 1)
    cpu[0] = cpu[1] = -1;
  else {
    cpu[0] = bench_cpu(0);
    cpu[1] = bench_cpu(n > 1 ? 1 : 0);
  }
  return 0;
}

static int place_idx(const char *s)
{
  for (int i = 0; i < 3; i++)
    if (!strcmp(s, PLACES[i]))
      return i;
  return 2;
}

static bench_ctx_t *shared_ctx;

static int run_mode(const opts_t *o, bench_cell_t *cell, bench_mode_t mode, bench_sample_t *s)
{
  bench_ctx_t *c = shared_ctx;
  uint64_t nmax = c->n_max;
  uint64_t *lat = c->lat;
  bench_hist_t *hist = c->hist;
  size_t msz = c->map_size;
  memset(c, 0, sizeof *c);
  c->lat = lat;
  c->hist = hist;
  c->n_max = nmax;
  c->map_size = msz;
  c->ops = cell->ops;
  c->cfg = cell->cfg;
  c->mode = mode;
  c->size = cell->size;
  c->cross_process = !strcmp(cell->process, "cross");
  c->domain = next_domain++;
  c->hpc = o->hpc;
  c->inplace = cell->inplace;
  bench_hist_init(c->hist);
  cpus_for(place_idx(cell->placement), c->cpu);
  timing(o, c);
  if (mode == BENCH_STREAM)
    c->n_max = nmax; /* streams need no latency array, same bound */
  int st = bench_run_sample(c);
  if (st != BENCH_OK) {
    snprintf(cell->note, sizeof cell->note, "%s", c->note);
    return st;
  }
  if (o->hpc)
    for (int side = 0; side < 2; side++)
      snprintf(cell->hpc[mode][side], sizeof cell->hpc[mode][side], "%s", c->hpc_line[side]);
  if (mode == BENCH_PINGPONG) {
    uint64_t k = c->batch ? c->batch : 1, nb = c->n / k;
    if (!nb) {
      snprintf(cell->note, sizeof cell->note, "ping-pong: no complete batch was measured");
      return BENCH_ERR;
    }
    /* batch pass: ns per round trip of each batch; the median batch is the figure */
    qsort(c->lat, nb, sizeof(uint64_t), bench_cmp_u64);
    s->has_rtt = 1;
    s->batch = k;
    s->nbatch = nb;
    s->rtt_batch = qtile(c->lat, nb, 50) / (double)k;
    s->rtt_batch_min = (double)c->lat[0] / (double)k;
    /* per-round pass: the distribution */
    const bench_hist_t *h = c->hist;
    s->rtt_n = h->count;
    s->rtt_min = (double)bench_hist_quantile(h, 0);
    s->rtt_max = (double)bench_hist_quantile(h, 100);
    s->rtt_p50 = (double)bench_hist_quantile(h, 50);
    s->rtt_p99 = (double)bench_hist_quantile(h, 99);
    s->rtt_p999 = (double)bench_hist_quantile(h, 99.9);
    s->rtt_p9999 = (double)bench_hist_quantile(h, 99.99);
    s->rtt_mean = bench_hist_mean(h);
    for (int i = 0; i < BENCH_NQ; i++)
      s->q[i] = (double)bench_hist_quantile(h, bench_quantiles[i]);
    s->hist = malloc(sizeof *s->hist);
    if (s->hist)
      memcpy(s->hist, h, sizeof *h);
  } else {
    s->has_stream = 1;
    s->st_n = c->n;
    s->st_elapsed_ns = (double)(c->t_end - c->t_start);
    if (s->st_elapsed_ns <= 0)
      s->st_elapsed_ns = 1;
    s->items_s = (double)c->n * 1e9 / s->st_elapsed_ns;
    s->mb_s = s->items_s * (double)cell->size / 1e6;
  }
  return BENCH_OK;
}

static void record_L(bench_results_t *r, double L)
{
  if (r->nL == r->capL) {
    r->capL = r->capL ? r->capL * 2 : 256;
    r->Ls = realloc(r->Ls, (size_t)r->capL * sizeof(double));
  }
  r->Ls[r->nL++] = L;
}

static double run_L_median(const bench_results_t *r)
{
  if (!r->nL)
    return 0;
  double *v = malloc((size_t)r->nL * sizeof *v);
  memcpy(v, r->Ls, (size_t)r->nL * sizeof *v);
  double m = bench_median(v, r->nL);
  free(v);
  return m;
}

static unsigned L_rounds(const opts_t *o) { return o->smoke ? 200 : o->quick ? 1000 : 2000; }

static void run_cell_sample(bench_results_t *r, const opts_t *o, bench_cell_t *cell)
{
  if (cell->status == BENCH_NA || cell->status == BENCH_ERR)
    return;
  bench_sample_t *s = &cell->s[cell->nsamples];
  memset(s, 0, sizeof *s);
  s->L_before = bench_measure_L(L_rounds(o));
  int st = BENCH_OK;
  if (!cell->ops->stream_only)
    st = run_mode(o, cell, BENCH_PINGPONG, s);
  if (st == BENCH_OK && !cell->ops->pingpong_only)
    st = run_mode(o, cell, BENCH_STREAM, s);
  s->L_after = bench_measure_L(L_rounds(o));
  record_L(r, s->L_before);
  record_L(r, s->L_after);
  double lo = s->L_before < s->L_after ? s->L_before : s->L_after;
  double hi = s->L_before < s->L_after ? s->L_after : s->L_before;
  s->L = hi;
  s->mode_flip = lo > 0 && hi / lo > BENCH_SLOW_FACTOR;
  s->status = st;
  if (st != BENCH_OK) {
    cell->status = st;
    return;
  }
  cell->nsamples++;
}

/* ---- probes: what this build can do, decided once */
static void probes(bench_results_t *r, const opts_t *o)
{
  int ch = bench_probe_channels(r->probe_chan, sizeof r->probe_chan);
  r->have_pkt = ch & 1;
  r->have_scl = (ch & 2) != 0;
  bench_cell_t probe;
  memset(&probe, 0, sizeof probe);
  probe.ops = &bench_libmca_ops;
  probe.cfg.type = 'm';
  probe.cfg.locking = MCX_LOCKING_LOCKFREE;
  probe.placement = "spread";
  probe.size = 24;
  opts_t tiny = *o;
  tiny.smoke = 1;
  bench_sample_t s;
  /* cross-process: a forked child as node 2 */
  probe.process = "cross";
  memset(&s, 0, sizeof s);
  int st = run_mode(&tiny, &probe, BENCH_PINGPONG, &s);
  free(s.hist);
  s.hist = NULL;
  r->have_xproc = st == BENCH_OK;
  if (!r->have_xproc)
    snprintf(r->probe_xproc, sizeof r->probe_xproc, "%s", probe.note);
  /* pmq transport */
  probe.process = "in";
  probe.cfg.transport = 1;
  st = run_mode(&tiny, &probe, BENCH_PINGPONG, &s);
  free(s.hist);
  r->have_pmq = st == BENCH_OK;
#ifdef _WIN32
  if (!r->have_pmq) /* the transport is not built there: the domain is refused (MCX_TRANSPORT=pmq) */
    snprintf(r->probe_pmq, sizeof r->probe_pmq, "not supported on this platform (Windows has no POSIX "
                                                "message queues; %s)", probe.note);
#else
  if (!r->have_pmq)
    snprintf(r->probe_pmq, sizeof r->probe_pmq, "%s", probe.note);
#endif
}

static int isatty_err;
static void progress(const opts_t *o, int done, int total, const char *id, double t0)
{
  if (!o->progress)
    return;
  double el = (double)(bench_now_ns()) / 1e9 - t0;
  fprintf(stderr, "\r\033[K[%3d%%] %4.0fs  %s", total ? done * 100 / total : 100, el, id);
  fflush(stderr);
}

/* ---- the plan: groups of (placement, size) */
typedef struct group {
  int first, count;
} group_t;
enum { MAX_GROUPS = 64 };

static int build_plan(plan_t *p, group_t *groups)
{
  bench_results_t *r = p->r;
  const opts_t *o = p->o;
  int ng = 0;
  static const size_t msizes[] = {24, 8, 8192};
  static const int locks[] = {MCX_LOCKING_LOCKFREE, MCX_LOCKING_GLOBAL, MCX_LOCKING_KERNEL};
  for (int pl = 0; pl < 3; pl++) {
    for (int si = 0; si < 3; si++) {
      size_t size = msizes[si];
      if (o->smoke && size == 8192)
        continue;
      int first = r->ncells;
      const int *types = size == 8 ? (const int[]){'s', 0} : (const int[]){'m', 'p', 0};
      for (const int *t = types; *t; t++)
        for (int li = 0; li < 3; li++)
          for (int xp = 0; xp < 2; xp++)
            for (int tr = 0; tr < 2; tr++)
              if (li < 2 || (!xp && !tr)) /* kernel: in-process shm cells */
                add_libmca(p, "matrix", *t, locks[li], 0, pl, xp, tr, size);
      if (size == 24)
        add_libmca(p, "matrix", 'm', MCX_LOCKING_LOCKFREE, 1, pl, 0, 0, size);
      if (!o->no_peers)
        for (int k = 0; k < NPEERS; k++) {
          if (size == 8192 && (PEERS[k] == &bench_peer_yield || PEERS[k] == &bench_peer_futex))
            continue;
          add_peer(p, "matrix", PEERS[k], pl, size);
        }
      if (r->ncells > first)
        groups[ng++] = (group_t){first, r->ncells - first};
    }
  }
  if (!o->no_sweep) {
    for (int si = 0; si < o->nsizes; si++) {
      size_t size = o->sizes[si];
      int first = r->ncells;
      add_libmca(p, "sweep", 'm', MCX_LOCKING_LOCKFREE, 0, 2, 0, 0, size);
      /* the same messages received in place (mcx_msg_recv_inplace): one copy fewer */
      add_libmca_as(p, "sweep", 'm', MCX_LOCKING_LOCKFREE, 0, 2, 0, 0, size, 1, 0, 0);
      add_libmca(p, "sweep", 'p', MCX_LOCKING_LOCKFREE, 0, 2, 0, 0, size);
      /* a producer that builds each packet whole (stamp and fill): in its
       * own buffer, then sent (copied); or in a claim, then committed */
      add_libmca_as(p, "sweep", 'p', MCX_LOCKING_LOCKFREE, 0, 2, 0, 0, size, 0, 0, 1);
      add_libmca_as(p, "sweep", 'p', MCX_LOCKING_LOCKFREE, 0, 2, 0, 0, size, 0, 1, 1);
      if (!o->no_peers) {
        static const bench_ops_t *const sweep_peers[] = {&bench_peer_ideal, &bench_peer_boost,
                                                         &bench_peer_ck, &bench_peer_mutex,
                                                         &bench_peer_pipe, &bench_peer_socket,
                                                         &bench_peer_mqueue};
        for (int k = 0; k < 7; k++)
          add_peer(p, "sweep", sweep_peers[k], 2, size);
      }
      if (r->ncells > first && ng < MAX_GROUPS)
        groups[ng++] = (group_t){first, r->ncells - first};
    }
  }
  return ng;
}

/* `--instr` anywhere among the options: the instruction counts instead of the
 * timing; every other argument is theirs. */
static int instr_mode(int argc, char **argv)
{
  int at = 0;
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
    if (!strcmp(argv[i], "--instr"))
      at = i;
  if (!at)
    return -1;
#ifdef _WIN32
  fprintf(stderr, "mca bench: --instr: not supported on this platform (it counts instructions under "
                  "valgrind's callgrind, which does not run Windows programs)\n");
  return MCA_EXIT_UNSUPPORTED;
#else
  char **args = calloc((size_t)argc + 1, sizeof *args);
  if (!args)
    return MCA_EXIT_FAIL;
  int n = 0;
  args[n++] = "--instr";
  for (int i = 1; i < argc; i++)
    if (i != at)
      args[n++] = argv[i];
  return mca_bench_instr(n, args);
#endif
}

/* `--python` anywhere among the options: the Python cells (python/mcapi/bench.py,
 * the helper mcapi_bench.py, run by python3); every other argument is theirs. */
static int python_mode(int argc, char **argv)
{
  int at = 0;
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
    if (!strcmp(argv[i], "--python"))
      at = i;
  if (!at)
    return -1;
#ifdef _WIN32
  fprintf(stderr, "mca bench: --python: not supported on this platform\n");
  return MCA_EXIT_UNSUPPORTED;
#else
  char script[4096];
  if (mca_tool_helper("mcapi_bench.py", script, sizeof script)) {
    fprintf(stderr, "mca bench: --python: its helper mcapi_bench.py is not installed beside mca\n");
    return MCA_EXIT_FAIL;
  }
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", script);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = 0;
  /* The helper finds the build tree (library, C peer) from its own place. */
  setenv("MCA_HELPER_DIR", dir, 1);
  char **args = calloc((size_t)argc + 3, sizeof *args);
  if (!args)
    return MCA_EXIT_FAIL;
  int n = 0;
  args[n++] = "python3";
  args[n++] = script;
  for (int i = 1; i < argc; i++)
    if (i != at)
      args[n++] = argv[i];
  args[n] = NULL;
  fflush(NULL);
  execvp("python3", args);
  fprintf(stderr, "mca bench: --python: cannot run python3: %s\n", strerror(errno));
  free(args);
  return MCA_EXIT_FAIL;
#endif
}

int mca_cmd_bench(int argc, char **argv)
{
  int pyrc = python_mode(argc, argv);
  if (pyrc >= 0)
    return pyrc;
  int irc = instr_mode(argc, argv);
  if (irc >= 0)
    return irc;
  opts_t o;
  memset(&o, 0, sizeof o);
  o.repeat = 5;
  isatty_err = isatty(2);
  o.progress = isatty_err;
  static const mca_opt_t table[] = {
      {"--quick", MCA_OPT_FLAG, 'q'},     {"--smoke", MCA_OPT_FLAG, 'S'},    {"--repeat", MCA_OPT_VALUE, 'r'},
      {"--json", MCA_OPT_VALUE, 'j'},     {"--only", MCA_OPT_VALUE, 'o'},    {"--sizes", MCA_OPT_VALUE, 's'},
      {"--no-sweep", MCA_OPT_FLAG, 'W'},  {"--no-peers", MCA_OPT_FLAG, 'P'}, {"--no-progress", MCA_OPT_FLAG, 'N'},
      {"--hpc", MCA_OPT_FLAG, 'H'},       {"--cpus", MCA_OPT_VALUE, 'C'},    {"--no-scale", MCA_OPT_FLAG, 'X'},
      {"--prio", MCA_OPT_VALUE, 'p'},     {NULL, 0, 0}};
  int repeat_set = 0, sizes_set = 0, prio = 0;
  mca_opts_t s;
  mca_opts_init(&s, "bench", argc, argv);
  for (int ch; (ch = mca_opts_next(&s, table)) != MCA_OPTS_END;) {
    switch (ch) {
    case 'q': o.quick = 1; break;
    case 'H': o.hpc = 1; break;
    case 'C': o.cpus = s.value; break;
    case 'X': o.no_scale = 1; break;
    case 'S': o.smoke = 1; break;
    case 'r': {
      long long v;
      if (mca_parse_int("bench", "--repeat", s.value, 1, BENCH_MAX_REPEAT, &v))
        return MCA_EXIT_USAGE;
      o.repeat = (int)v;
      repeat_set = 1;
      break;
    }
    case 'p':
      if (mca_parse_prio("bench", s.value, &prio))
        return MCA_EXIT_USAGE;
      break;
    case 'j': o.json = s.value; break;
    case 'o':
      if (o.only)
        regfree(&o.only_re);
      o.only = s.value;
      if (regcomp(&o.only_re, s.value, REG_EXTENDED | REG_NOSUB)) {
        o.only = NULL;
#ifdef _WIN32
        return mca_usage_error("bench", "--only: bad regular expression '%s' (here: alternatives, '.', [..], "
                                        "*, +, ?, ^, $; groups and intervals are not supported on this platform)",
                               s.value);
#else
        return mca_usage_error("bench", "--only: bad regular expression '%s'", s.value);
#endif
      }
      break;
    case 's':
      if (parse_sizes(&o, s.value))
        return mca_usage_error("bench", "--sizes: expected sizes 1..65536 like 1,64,4k,64k, got '%s'", s.value);
      sizes_set = 1;
      break;
    case 'W': o.no_sweep = 1; break;
    case 'P': o.no_peers = 1; break;
    case 'N': o.progress = 0; break;
    case MCA_OPTS_HELP: usage(stdout); return 0;
    case MCA_OPTS_OPERAND: return mca_usage_error("bench", "unexpected argument '%s'", s.value);
    default: return MCA_EXIT_USAGE;
    }
  }
  if (o.cpus && mca_parse_cpus("bench", o.cpus))
    return MCA_EXIT_USAGE;
  if (o.json && mca_check_output("bench", "--json", o.json))
    return MCA_EXIT_USAGE;
  if (!repeat_set)
    o.repeat = o.smoke ? 1 : o.quick ? 3 : 5;
  if (!sizes_set) {
    static const size_t full[] = {1, 8, 64, 256, 1024, 4096, 8192, 16384, 65536};
    static const size_t quick[] = {1, 64, 1024, 8192, 65536};
    static const size_t smoke[] = {64};
    const size_t *src = o.smoke ? smoke : o.quick ? quick : full;
    o.nsizes = o.smoke ? 1 : o.quick ? 5 : 9;
    memcpy(o.sizes, src, (size_t)o.nsizes * sizeof(size_t));
  }
  bench_results_t *r = calloc(1, sizeof *r);
  if (!r) {
    fprintf(stderr, "mca bench: out of memory\n");
    return MCA_EXIT_FAIL;
  }
  /* The plan first: an --only that matches nothing is a usage error, found before any probe. */
  plan_t p = {r, &o, 0};
  group_t groups[MAX_GROUPS];
  int ng = build_plan(&p, groups);
  if (o.only && !r->ncells && regexec(&o.only_re, "scale.", 0, NULL, 0) &&
      regexec(&o.only_re, "state.lockfree", 0, NULL, 0)) {
    mca_usage_error("bench", "--only '%s' matches no cell (ids look like msg.lockfree.spread.in.shm.24B.copy, "
                             "peer.pipe.spread.24B.copy, sweep.pkt.lockfree.spread.4096B.sum, scale., state.lockfree)",
                    o.only);
    regfree(&o.only_re);
    free(r->cells);
    free(r);
    return MCA_EXIT_USAGE;
  }
  if (o.json && !strcmp(o.json, "-")) {
    mca_json_to_stdout(); /* the table goes to stderr, the JSON alone to stdout */
    o.progress = 0;
  }
  /* Real-time scheduling only when asked: every thread and forked node inherits it. */
  int prc;
  if (prio && (prc = mca_set_prio("bench", prio)) != 0)
    return prc == MCA_EXIT_UNSUPPORTED ? prc : MCA_EXIT_USAGE;
  mca_cleanup_on_interrupt("bench");

  bench_machine_read(&r->machine);
  r->repeat = o.repeat;
  r->quick = o.quick;
  r->smoke = o.smoke;
  static char argline[512];
  for (int i = 0; i < argc; i++) {
    strncat(argline, i ? " " : "mca ", sizeof argline - strlen(argline) - 1);
    strncat(argline, argv[i], sizeof argline - strlen(argline) - 1);
  }
  r->argv_line = argline;
  shared_ctx = bench_ctx_alloc(0, o.smoke ? 100000 : 400000);
  if (!shared_ctx) {
    fprintf(stderr, "mca bench: out of memory\n");
    return 1;
  }
  /* Domains are system-wide shared-memory partitions: keep concurrent runs apart. */
  next_domain = 0x10000000u + (((uint32_t)getpid() & 0xfff) << 16);
  double t0 = (double)bench_now_ns() / 1e9;
  printf("mca bench: %s, %d CPUs%s, %s; %s %s; commit %.12s%s (%s)\n", r->machine.cpu,
         r->machine.cpus, r->machine.virtualized ? " (virtualized)" : "", r->machine.kernel,
         r->machine.compiler, r->machine.build_type, r->machine.commit,
         r->machine.dirty ? "+dirty" : "", r->machine.commit_source);
  printf("mode: %s, %d repeats; threads pinned per placement; L measured before/after every sample\n",
         o.smoke ? "smoke" : o.quick ? "quick" : "full", o.repeat);
  printf("cpus:");
  for (int i = 0; i < bench_ncpus(); i++)
    printf(" %d", bench_cpus[i]);
  printf(" (onecore: the first; spread and L: the first two; scaling: all)\n");
  printf("timer: clock_gettime, %llu ns per timed interval, subtracted from every latency and L sample\n",
         (unsigned long long)bench_timer_cost_ns());
  if (r->machine.cpus < 2)
    printf("note: one CPU: 'spread' placements run on one core and L is not measured\n");
  if (o.progress)
    fprintf(stderr, "probing what this build provides...\n");
  probes(r, &o);
  mark_unavailable(r);
  printf("available: packet channels %s, scalar channels %s, cross-process %s, pmq transport %s\n",
         r->have_pkt ? "yes" : "no", r->have_scl ? "yes" : "no", r->have_xproc ? "yes" : "no",
         r->have_pmq ? "yes" : "no");
  if (!r->have_pkt || !r->have_scl)
    printf("  channels: %s\n", r->probe_chan);
  if (!r->have_xproc)
    printf("  cross-process: %s\n", r->probe_xproc);
  if (!r->have_pmq)
    printf("  pmq: %s\n", r->probe_pmq);
  fflush(stdout);

  int total = 0;
  for (int g = 0; g < ng; g++)
    for (int i = 0; i < groups[g].count; i++)
      if (r->cells[groups[g].first + i].status == BENCH_OK)
        total += o.repeat;
  int done = 0;
  for (int g = 0; g < ng; g++) {
    for (int rep = 0; rep < o.repeat; rep++) {
      for (int i = 0; i < groups[g].count; i++) {
        bench_cell_t *c = &r->cells[groups[g].first + i];
        if (c->status != BENCH_OK)
          continue;
        progress(&o, done, total, c->id, t0);
        run_cell_sample(r, &o, c);
        done++;
      }
    }
  }
  /* Sample hygiene: every sample is judged against the run's median L; a
   * cell left with too few clean samples gets more (at most --repeat more),
   * then has a figure or is `unstable`. */
  r->min_clean = (o.repeat + 1) / 2;
  double Lmed = run_L_median(r);
  for (int i = 0; i < r->ncells; i++) {
    bench_cell_t *c = &r->cells[i];
    if (c->status != BENCH_OK)
      continue;
    int clean = bench_classify(c, Lmed);
    if (clean < r->min_clean)
      bench_wait_fast_mode(Lmed, o.smoke ? 300 : 2000);
    for (int extra = 0; clean < r->min_clean && extra < o.repeat && c->status == BENCH_OK &&
                        c->nsamples < BENCH_MAX_REPEAT;
         extra++) {
      progress(&o, done, total, c->id, t0);
      run_cell_sample(r, &o, c);
      c->reruns++;
      clean = bench_classify(c, Lmed);
    }
  }
  r->L_median = run_L_median(r);
  for (int i = 0; i < r->ncells; i++) {
    bench_cell_t *c = &r->cells[i];
    c->unstable = c->status == BENCH_OK && bench_classify(c, r->L_median) < r->min_clean;
  }
  if (!o.no_scale && (!o.only || !regexec(&o.only_re, "scale.", 0, NULL, 0))) {
    if (o.progress)
      fprintf(stderr, "\r\033[Kscaling and contention matrix...");
    bench_scale_run(r, o.smoke ? 0 : o.quick ? 1 : 2, o.repeat, o.progress);
  }
  if (o.progress)
    fprintf(stderr, "\r\033[K");
  r->wall_s = (double)bench_now_ns() / 1e9 - t0;
  for (int i = 0; i < r->ncells; i++)
    bench_summarize(&r->cells[i]);
  bench_derive(r);
  if (!o.only || !regexec(&o.only_re, "state.lockfree", 0, NULL, 0)) {
    if (o.progress)
      fprintf(stderr, "state messages...\r");
    bench_state_run(r, o.repeat, o.smoke ? 20 : o.quick ? 150 : 400);
  }
  bench_print_table(stdout, r);
  bench_scale_print(stdout, r);
  bench_state_print(stdout, r);
  if (o.hpc)
    bench_hpc_print(stdout, r);
  int rc = 0;
  if (o.json) {
    if (bench_write_json(o.json, r)) {
      fprintf(stderr, "mca bench: cannot write %s\n", o.json);
      rc = 1;
    } else if (strcmp(o.json, "-")) {
      printf("\nwrote %s\n", o.json);
    }
  }
  fflush(stdout);
  for (int i = 0; i < r->ncells; i++)
    if (r->cells[i].status == BENCH_ERR) {
      fprintf(stderr, "mca bench: cell %s failed: %s\n", r->cells[i].id, r->cells[i].note);
      rc = 1;
    }
  bench_ctx_free(shared_ctx);
  for (int i = 0; i < r->ncells; i++) {
    for (int k = 0; k < r->cells[i].nsamples; k++)
      free(r->cells[i].s[k].hist);
    free(r->cells[i].hist);
  }
  bench_scale_free(r);
  bench_iceoryx_stop(); /* the last step: RouDi finishes when this process exits */
  free(r->cells);
  free(r->derived);
  free(r->Ls);
  free(r);
  if (o.only)
    regfree(&o.only_re);
  return rc;
}
