/* SPDX-License-Identifier: BSD-3-Clause */
/* The conventions every mca subcommand shares (cli.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#ifndef _WIN32 /* Windows: no real-time scheduler class, no signals to clean up after (below) */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#endif

#include "mcapi.h"
#include "bench.h"
#include "bench_report.h"
#include "cli.h"


/* ---- option values */
int mca_parse_int(const char *cmd, const char *opt, const char *s, long long min, long long max, long long *out)
{
  char *end = NULL;
  errno = 0;
  long long v = s && *s ? strtoll(s, &end, 10) : 0;
  if (!s || !*s || *end || errno == ERANGE || v < min || v > max || (s[0] == ' ')) {
    fprintf(stderr, "mca %s: %s: expected a whole number from %lld to %lld, got '%s'\n", cmd, opt, min, max,
            s ? s : "");
    return -1;
  }
  *out = v;
  return 0;
}

int mca_parse_size(const char *cmd, const char *opt, const char *s, unsigned long long min,
                   unsigned long long max, unsigned long long *out)
{
  char *end = NULL;
  errno = 0;
  unsigned long long v = 0, mul = 1;
  int ok = s && *s >= '0' && *s <= '9';
  if (ok) {
    v = strtoull(s, &end, 10);
    if (*end == 'k' || *end == 'K')
      mul = 1ull << 10, end++;
    else if (*end == 'm' || *end == 'M')
      mul = 1ull << 20, end++;
    else if (*end == 'g' || *end == 'G')
      mul = 1ull << 30, end++;
    ok = !*end && errno != ERANGE && v <= max / mul;
  }
  if (!ok || v * mul < min || v * mul > max) {
    fprintf(stderr, "mca %s: %s: expected a size from %llu to %llu (suffixes k, M, G), got '%s'\n", cmd, opt,
            min, max, s ? s : "");
    return -1;
  }
  *out = v * mul;
  return 0;
}

int mca_parse_num(const char *cmd, const char *opt, const char *s, double min, double max, double *out)
{
  char *end = NULL;
  errno = 0;
  double v = s && *s ? strtod(s, &end) : NAN;
  if (!s || !*s || *end || errno == ERANGE || isnan(v) || v < min || v > max) {
    fprintf(stderr, "mca %s: %s: expected a number from %g to %g, got '%s'\n", cmd, opt, min, max, s ? s : "");
    return -1;
  }
  *out = v;
  return 0;
}

int mca_parse_cpus(const char *cmd, const char *s)
{
  if (!s || bench_set_cpus(s)) {
    fprintf(stderr, "mca %s: --cpus: expected online CPU numbers like 0,1 or 0-3 or 0,2,4-7, got '%s'\n", cmd,
            s ? s : "");
    return -1;
  }
  return 0;
}

int mca_parse_prio(const char *cmd, const char *s, int *prio)
{
  long long v;
  if (mca_parse_int(cmd, "--prio", s, 1, 99, &v))
    return -1;
  *prio = (int)v;
  return 0;
}

int mca_set_prio(const char *cmd, int prio)
{
#ifdef _WIN32
  fprintf(stderr, "mca %s: --prio %d: not supported on this platform (Windows has no SCHED_FIFO)\n", cmd, prio);
  return MCA_EXIT_UNSUPPORTED;
#else
  struct sched_param sp = {.sched_priority = prio};
  int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
  if (r) {
    fprintf(stderr, "mca %s: --prio %d: SCHED_FIFO refused (%s); run with CAP_SYS_NICE or an rtprio limit\n", cmd,
            prio, strerror(r));
    return -1;
  }
  return 0;
#endif
}

/* ---- the command line */
void mca_opts_init(mca_opts_t *s, const char *cmd, int argc, char **argv)
{
  memset(s, 0, sizeof *s);
  s->cmd = cmd;
  s->argc = argc;
  s->argv = argv;
  s->i = 1;
}

int mca_usage_error(const char *cmd, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "mca %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return MCA_EXIT_USAGE;
}

int mca_opts_next(mca_opts_t *s, const mca_opt_t *table)
{
  s->value = NULL;
  s->name[0] = 0;
  if (s->i >= s->argc)
    return MCA_OPTS_END;
  const char *a = s->argv[s->i++];
  /* "-" alone is an operand (standard input or output) */
  if (s->operands || a[0] != '-' || !a[1]) {
    s->value = a;
    return MCA_OPTS_OPERAND;
  }
  if (!strcmp(a, "--")) {
    s->operands = 1;
    return mca_opts_next(s, table);
  }
  if (!strcmp(a, "-h") || !strcmp(a, "--help"))
    return MCA_OPTS_HELP;
  const char *eq = strchr(a, '=');
  size_t len = eq ? (size_t)(eq - a) : strlen(a);
  snprintf(s->name, sizeof s->name, "%.*s", (int)len, a);
  for (const mca_opt_t *o = table; o && o->name; o++) {
    if (strlen(o->name) != len || strncmp(o->name, a, len))
      continue;
    if (eq && o->takes == MCA_OPT_FLAG) {
      mca_usage_error(s->cmd, "%s takes no value, got '%s'", o->name, a);
      return MCA_OPTS_ERROR;
    }
    if (eq) {
      s->value = eq + 1;
    } else if (o->takes == MCA_OPT_VALUE) {
      if (s->i >= s->argc) {
        mca_usage_error(s->cmd, "%s needs a value (mca %s --help)", o->name, s->cmd);
        return MCA_OPTS_ERROR;
      }
      s->value = s->argv[s->i++];
    } else if (o->takes == MCA_OPT_MAYBE && s->i < s->argc && s->argv[s->i][0] != '-') {
      s->value = s->argv[s->i++];
    }
    return o->key;
  }
  mca_usage_error(s->cmd, "unknown option '%s' (mca %s --help lists the options)", a, s->cmd);
  return MCA_OPTS_ERROR;
}

/* ---- a configuration's run or a measurement's (cli.h: mca_run_opts_t) */
void mca_run_opts_init(mca_run_opts_t *o)
{
  memset(o, 0, sizeof *o);
  o->size = 64, o->count = 20000, o->rtts = 2000, o->rounds = 5, o->timeout_s = 600;
}

int mca_run_opt(const mca_opts_t *s, int k, mca_run_opts_t *o, long long max_rounds)
{
  const char *cmd = s->cmd;
  if (k > 0 && k != 'c' && k != 'k' && k != 'b' && !o->bench_opt[0])
    snprintf(o->bench_opt, sizeof o->bench_opt, "%s", s->name);
  switch (k) {
  case 'c':
  case 'k':
    if (o->config) {
      mca_usage_error(cmd, "one configuration at a time (--config or --check)");
      return -1;
    }
    o->config = s->value;
    o->check = k == 'k';
    return 1;
  case 'b': o->bench = 1; return 1;
  case 's': return mca_parse_int(cmd, "--size", s->value, 16, MCAPI_MAX_MSG_SIZE, &o->size) ? -1 : 1;
  case 'N': return mca_parse_int(cmd, "--count", s->value, 100, 10000000, &o->count) ? -1 : 1;
  case 'r': return mca_parse_int(cmd, "--rtts", s->value, 100, 10000000, &o->rtts) ? -1 : 1;
  case 'R': return mca_parse_int(cmd, "--rounds", s->value, 1, max_rounds, &o->rounds) ? -1 : 1;
  case 'T': return mca_parse_int(cmd, "--timeout", s->value, 5, 86400, &o->timeout_s) ? -1 : 1;
  case 'j': o->json = s->value; return 1;
  default: return 0;
  }
}

int mca_run_opts_done(const mca_opts_t *s, const mca_run_opts_t *o, const char *bench_makes)
{
  const char *cmd = s->cmd;
  if (o->bench && o->config) {
    mca_usage_error(cmd, "--bench makes %s of its own: it takes no --config or --check", bench_makes);
    return -1;
  }
  if (!o->bench && o->bench_opt[0]) {
    mca_usage_error(cmd, "%s goes with --bench", o->bench_opt);
    return -1;
  }
  if (!o->bench && !o->config) {
    mca_usage_error(cmd, "expected --config FILE, --check FILE or --bench (mca %s --help)", cmd);
    return -1;
  }
  if (o->bench && o->rtts / o->rounds < 20) {
    mca_usage_error(cmd, "--rtts must give at least 20 round trips per round (--rounds)");
    return -1;
  }
  if (o->json && mca_check_output(cmd, "--json", o->json))
    return -1;
  return 0;
}

/* ---- outputs */
int mca_check_output(const char *cmd, const char *opt, const char *path)
{
  if (!path || !strcmp(path, "-"))
    return 0;
  struct stat st;
  if (!*path) {
    fprintf(stderr, "mca %s: %s: empty path\n", cmd, opt);
    return -1;
  }
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      fprintf(stderr, "mca %s: %s %s: is a directory\n", cmd, opt, path);
      return -1;
    }
    if (access(path, W_OK)) {
      fprintf(stderr, "mca %s: %s %s: not writable (%s)\n", cmd, opt, path, strerror(errno));
      return -1;
    }
    return 0;
  }
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == dir)
    dir[1] = 0;
  else
    *slash = 0;
  if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "mca %s: %s %s: directory %s does not exist\n", cmd, opt, path, dir);
    return -1;
  }
  if (access(dir, W_OK)) {
    fprintf(stderr, "mca %s: %s %s: directory %s is not writable\n", cmd, opt, path, dir);
    return -1;
  }
  return 0;
}

static int saved_stdout = -1;

void mca_json_to_stdout(void)
{
  if (saved_stdout >= 0)
    return;
  fflush(stdout);
#ifdef _WIN32
  saved_stdout = dup(1);
#else
  saved_stdout = fcntl(1, F_DUPFD_CLOEXEC, 3);
#endif
  if (saved_stdout >= 0)
    dup2(2, 1);
}

FILE *mca_output_open(const char *cmd, const char *path)
{
  FILE *f;
  if (!strcmp(path, "-")) {
    int fd = saved_stdout >= 0 ? dup(saved_stdout) : dup(1);
    f = fd >= 0 ? fdopen(fd, "w") : NULL;
  } else {
    f = fopen(path, "w");
  }
  if (!f)
    fprintf(stderr, "mca %s: cannot write %s: %s\n", cmd, path, strerror(errno));
  return f;
}

int mca_output_close(FILE *f)
{
  if (!f)
    return -1;
  int bad = ferror(f);
  return fclose(f) || bad ? -1 : 0;
}

/* ---- the envelope */
void mca_json_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

static int cli_argc;
static char **cli_argv;

void mca_cli_args(int argc, char **argv)
{
  cli_argc = argc;
  cli_argv = argv;
}

const char *mca_command_line(void)
{
  int argc = cli_argc;
  char **argv = cli_argv;
  static char line[1024];
  size_t k = (size_t)snprintf(line, sizeof line, "mca");
  for (int i = 0; i < argc && k < sizeof line - 4; i++) {
    const char *a = argv[i];
    int plain = *a != 0;
    for (const char *p = a; *p; p++)
      if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,=:+@%", *p))
        plain = 0;
    if (plain) {
      k += (size_t)snprintf(line + k, sizeof line - k, " %s", a);
    } else {
      k += (size_t)snprintf(line + k, sizeof line - k, " '");
      for (const char *p = a; *p && k < sizeof line - 6; p++)
        k += (size_t)snprintf(line + k, sizeof line - k, *p == '\'' ? "'\\''" : "%c", *p);
      k += (size_t)snprintf(line + k, sizeof line - k, "'");
    }
  }
  return line;
}

static int affinity_cpus(void)
{
#ifdef _WIN32
  return bench_ncpus();
#else
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set))
    return (int)sysconf(_SC_NPROCESSORS_ONLN);
  return CPU_COUNT(&set);
#endif
}

static void envelope_members(FILE *f)
{
  static bench_machine_t m;
  static int have;
  if (!have) {
    bench_machine_read(&m);
    have = 1;
  }
  time_t t = time(NULL);
  char date[32];
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  fputs("\"date\": ", f);
  mca_json_str(f, date);
  fputs(",\n\"command\": ", f);
  mca_json_str(f, mca_command_line());
  fputs(",\n", f);
  bench_machine_json(f, &m, affinity_cpus());
}

void mca_json_envelope(FILE *f, const char *schema)
{
  fputs("{\n\"schema\": ", f);
  mca_json_str(f, schema);
  fputs(",\n", f);
  envelope_members(f);
  fputs(",\n", f);
}

char *mca_json_envelope_object(void)
{
#ifdef _WIN32
  return NULL; /* no open_memstream; its caller (mca model) is not built there */
#else
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  if (!f)
    return NULL;
  fputs("{", f);
  envelope_members(f);
  fputs("}", f);
  fclose(f);
  return buf;
#endif
}

#ifdef _WIN32
/* Windows: Ctrl-C ends the process, and with its last handle every named
 * mapping it made is gone; there is nothing to clean up. */
void mca_cleanup_on_interrupt(const char *cmd) { (void)cmd; }
#else
/* ---- Ctrl-C: children, then what they and we left in /dev/shm and /dev/mqueue */
static int sig_pipe[2] = {-1, -1};
static const char *sig_cmd = "";
static atomic_int cleaning; /* an interrupt is being cleaned up: the process ends in cleanup_thread */

/* exit() from another thread while the cleanup runs waits for it (it ends the process with _exit). */
static void wait_for_cleanup(void)
{
  if (atomic_load(&cleaning))
    for (;;)
      pause();
}

static void on_signal(int sig)
{
  unsigned char b = (unsigned char)sig;
  atomic_store(&cleaning, 1); /* lock-free: safe in a handler; exit() now waits for the cleanup */
  ssize_t w = write(sig_pipe[1], &b, 1); /* async-signal-safe; the cleanup thread does the rest */
  (void)w;
}

/* Every process forked since the handler was installed records its pid here
 * (shared memory), so the cleanup knows the partitions of nodes that have
 * already died of the signal and been reaped. */
enum { MAX_FORKED = 1024 };
static struct forked {
  atomic_int n;
  int pid[MAX_FORKED];
} *forked;

static void child_after_fork(void)
{
  if (forked) {
    int k = atomic_fetch_add(&forked->n, 1);
    if (k < MAX_FORKED)
      forked->pid[k] = (int)getpid();
  }
  /* A forked node dies of the signal itself; the parent cleans up. */
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
}

/* The direct children of this process, from /proc. */
static int children(int *pids, int cap)
{
  int n = 0;
  DIR *d = opendir("/proc");
  if (!d)
    return 0;
  struct dirent *e;
  pid_t me = getpid();
  while ((e = readdir(d)) && n < cap) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9')
      continue;
    char path[300], buf[512];
    snprintf(path, sizeof path, "/proc/%.256s/stat", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[k] = 0;
    char *rp = strrchr(buf, ')'); /* "pid (comm) S ppid ..." - comm may hold spaces */
    int ppid = 0;
    char state;
    if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == me)
      pids[n++] = atoi(e->d_name);
  }
  closedir(d);
  return n;
}

static void *cleanup_thread(void *arg)
{
  (void)arg;
  unsigned char sig = 0;
  while (read(sig_pipe[0], &sig, 1) != 1)
    if (errno != EINTR)
      return NULL;
  atomic_store(&cleaning, 1);
  static int pids[1 + 256 + MAX_FORKED];
  int n = children(pids + 1, 256);
  for (int i = 1; i <= n; i++)
    kill(pids[i], SIGKILL);
  for (int i = 1; i <= n; i++)
    waitpid(pids[i], NULL, 0);
  pids[0] = getpid();
  int all = n + 1;
  int nf = forked ? atomic_load(&forked->n) : 0;
  for (int i = 0; i < nf && i < MAX_FORKED; i++)
    pids[all++] = forked->pid[i];
  fprintf(stderr, "\nmca %s: interrupted (%s)%s\n", sig_cmd, strsignal(sig),
          n ? "; stopped the forked nodes" : "");
  int removed = mca_domains_remove_owned(pids, all, stderr);
  if (removed)
    fprintf(stderr, "mca %s: removed %d partition(s) this run left\n", sig_cmd, removed);
  _exit(128 + sig);
  return NULL;
}

void mca_cleanup_on_interrupt(const char *cmd)
{
  static int installed;
  if (installed)
    return;
  installed = 1;
  sig_cmd = cmd;
  if (pipe(sig_pipe))
    return;
  fcntl(sig_pipe[0], F_SETFD, FD_CLOEXEC);
  fcntl(sig_pipe[1], F_SETFD, FD_CLOEXEC);
  pthread_t t;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&t, &a, cleanup_thread, NULL)) {
    pthread_attr_destroy(&a);
    return;
  }
  pthread_attr_destroy(&a);
  forked = bench_shared_alloc(sizeof *forked);
  pthread_atfork(NULL, NULL, child_after_fork);
  atexit(wait_for_cleanup);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}
#endif
