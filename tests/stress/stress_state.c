/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * State channels under load: a writer at full speed and several readers on
 * the other core (threads), in both locking modes, with two buffers and few
 * retries so the writer laps readers often. Every value carries its version,
 * a fill pattern and a checksum: no reader may ever see a torn value, a value
 * whose embedded version differs from the one returned, or versions going
 * backwards. Then reader processes: one is killed mid-stream (SIGKILL); the
 * writer and the other reader carry on unaffected.
 * Bounded by MCX_STRESS_SECONDS (default 3).
 */
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "ports/mcx_port.h"

#define READERS 3
#define PAYLOAD 200

typedef struct {
  uint64_t version;
  uint32_t len;
  uint32_t sum;
  uint8_t fill[PAYLOAD];
} value_t;

static uint32_t sum_of(const uint8_t *p, uint32_t n)
{
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 16777619u;
  return h;
}

static void make(value_t *v, uint64_t version)
{
  v->version = version;
  v->len = 8 + (uint32_t)(version * 7 % (PAYLOAD - 8));
  for (uint32_t i = 0; i < v->len; i++)
    v->fill[i] = (uint8_t)(version * 31 + i);
  v->sum = sum_of(v->fill, v->len);
}

/* 0 = fine; otherwise what is wrong. */
static const char *verify(const value_t *v, size_t size, uint64_t version, uint64_t *last)
{
  if (version == 0)
    return NULL; /* nothing written yet */
  if (size != sizeof(uint64_t) + 8 + v->len || v->len > PAYLOAD)
    return "size does not match the value";
  if (v->version != version)
    return "embedded version differs from the returned one";
  if (sum_of(v->fill, v->len) != v->sum)
    return "torn value (checksum)";
  for (uint32_t i = 0; i < v->len; i++)
    if (v->fill[i] != (uint8_t)(version * 31 + i))
      return "torn value (pattern)";
  if (version < *last)
    return "version went backwards";
  *last = version;
  return NULL;
}

struct shared {
  mcapi_domain_t dom;
  mcx_locking_t lk;
  atomic_int stop;
  atomic_ullong writes;
  atomic_ullong reads, laps, bad;
  pthread_barrier_t start;
};

static void node(struct shared *s, mcapi_node_t id)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.locking = s->lk;
  mcapi_initialize(s->dom, id, NULL, &p, &info, &st);
  if (st != MCAPI_SUCCESS) {
    fprintf(stderr, "initialize: %u\n", st);
    exit(2);
  }
}

static void *writer(void *arg)
{
  struct shared *s = arg;
  mcx_port_pin_self(0);
  node(s, 1);
  mcapi_status_t st;
  mcx_state_t h = mcx_state_create(1, sizeof(value_t), 2, &st);
  pthread_barrier_wait(&s->start);
  value_t v;
  uint64_t n = 0;
  while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
    make(&v, n + 1);
    mcx_state_write(h, &v, sizeof(uint64_t) + 8 + v.len, &st);
    if (st != MCAPI_SUCCESS)
      break;
    n++;
  }
  atomic_store(&s->writes, n);
  pthread_barrier_wait(&s->start); /* readers are done */
  mcapi_finalize(&st);
  return NULL;
}

struct reader_arg {
  struct shared *s;
  mcapi_node_t id;
};

static void *reader(void *arg)
{
  struct reader_arg *a = arg;
  struct shared *s = a->s;
  mcx_port_pin_self(mcx_port_ncpus() > 1 ? 1 : 0);
  node(s, a->id);
  pthread_barrier_wait(&s->start);
  mcapi_status_t st;
  mcx_state_t h = mcx_state_open(s->dom, 1, 1, 5000, &st);
  value_t v;
  uint64_t last = 0, reads = 0, laps = 0, bad = 0;
  while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
    mca_uint64_t ver;
    size_t n = mcx_state_read(h, &v, sizeof v, &ver, &st);
    if (st == MCAPI_ERR_TRANSMISSION) {
      laps++;
      continue;
    }
    const char *why = st == MCAPI_SUCCESS ? verify(&v, n, ver, &last) : "read failed";
    if (why) {
      if (bad++ < 3)
        fprintf(stderr, "reader %u: %s (version %llu, status %u)\n", a->id, why,
                (unsigned long long)ver, st);
    }
    reads++;
  }
  atomic_fetch_add(&s->reads, reads);
  atomic_fetch_add(&s->laps, laps);
  atomic_fetch_add(&s->bad, bad);
  pthread_barrier_wait(&s->start);
  mcapi_finalize(&st);
  return NULL;
}

static void threads(mcapi_domain_t dom, mcx_locking_t lk)
{
  static struct shared s;
  memset(&s, 0, sizeof s);
  s.dom = dom;
  s.lk = lk;
  pthread_barrier_init(&s.start, NULL, READERS + 2);
  mcx_state_set_read_retries(2);
  pthread_t w, r[READERS];
  struct reader_arg ra[READERS];
  pthread_create(&w, NULL, writer, &s);
  for (int i = 0; i < READERS; i++) {
    ra[i] = (struct reader_arg){&s, (mcapi_node_t)(10 + i)};
    pthread_create(&r[i], NULL, reader, &ra[i]);
  }
  pthread_barrier_wait(&s.start);
  usleep((useconds_t)(mcx_test_stress_seconds(3) / 4 * 1e6));
  atomic_store(&s.stop, 1);
  pthread_barrier_wait(&s.start);
  pthread_join(w, NULL);
  for (int i = 0; i < READERS; i++)
    pthread_join(r[i], NULL);
  pthread_barrier_destroy(&s.start);
  mcx_state_set_read_retries(64);
  CHECK_EQ_U(atomic_load(&s.bad), 0);
  CHECK(atomic_load(&s.reads) > 0);
  CHECK(atomic_load(&s.writes) > 0);
  printf("   %s: %llu writes, %llu reads checked by %d readers, %llu lapped reads reported\n",
         lk == MCX_LOCKING_GLOBAL ? "global" : lk == MCX_LOCKING_KERNEL ? "kernel" : "lock-free",
         (unsigned long long)atomic_load(&s.writes), (unsigned long long)atomic_load(&s.reads),
         READERS, (unsigned long long)atomic_load(&s.laps));
}

TEST(writer_and_readers_threads_lockfree) { threads(51, MCX_LOCKING_LOCKFREE); }
TEST(writer_and_readers_threads_global) { threads(52, MCX_LOCKING_GLOBAL); }

/* Reader process: reads until told to stop; exit 0 if every value was whole. */
static int reader_process(mcapi_domain_t dom, mcapi_node_t id, int report_fd)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  mcapi_initialize(dom, id, NULL, &p, &info, &st);
  if (st != MCAPI_SUCCESS)
    return 1;
  mcx_state_t h = mcx_state_open(dom, 1, 1, MCX_TEST_WAIT_MS, &st);
  if (st != MCAPI_SUCCESS)
    return 2;
  value_t v;
  uint64_t last = 0, reads = 0;
  for (;;) {
    mca_uint64_t ver;
    size_t n = mcx_state_read(h, &v, sizeof v, &ver, &st);
    if (st == MCAPI_ERR_ENDP_INVALID)
      break; /* the writer closed the channel: done */
    if (st == MCAPI_ERR_TRANSMISSION)
      continue;
    if (st != MCAPI_SUCCESS || verify(&v, n, ver, &last))
      return 4;
    if (++reads == 1 && write(report_fd, "r", 1) != 1) /* the parent waits for a first read */
      return 3;
  }
  mcapi_finalize(&st);
  return reads > 0 ? 0 : 5;
}

TEST(reader_process_killed_mid_read_changes_nothing)
{
  mcapi_domain_t dom = 53;
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  mcapi_initialize(dom, 1, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcx_state_t h = mcx_state_create(1, sizeof(value_t), 3, &st);
  value_t v;
  make(&v, 1);
  mcx_state_write(h, &v, sizeof(uint64_t) + 8 + v.len, &st);
  int fds[2];
  CHECK(pipe(fds) == 0);
  pid_t victim = fork();
  if (victim == 0)
    _exit(reader_process(dom, 2, fds[1]));
  pid_t survivor = fork();
  if (survivor == 0)
    _exit(reader_process(dom, 3, fds[1]));
  char c;
  CHECK(read(fds[0], &c, 1) == 1 && read(fds[0], &c, 1) == 1);
  uint64_t n = 1;
  double end = mcx_test_now() + mcx_test_stress_seconds(3) / 4, kill_at = mcx_test_now() + 0.05;
  int killed = 0;
  while (mcx_test_now() < end || !killed) {
    for (int k = 0; k < 256; k++) {
      make(&v, ++n);
      mcx_state_write(h, &v, sizeof(uint64_t) + 8 + v.len, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
    }
    if (!killed && mcx_test_now() >= kill_at) {
      kill(victim, SIGKILL);
      killed = 1;
    }
  }
  /* The survivor reads a value written after the kill, whole. */
  mca_uint64_t ver;
  mcx_state_read(h, &v, sizeof v, &ver, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(ver, n);
  mcx_state_close(h, &st);
  int ws = 0;
  waitpid(survivor, &ws, 0);
  CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  waitpid(victim, &ws, 0);
  CHECK(WIFSIGNALED(ws));
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  close(fds[0]);
  close(fds[1]);
  printf("   %llu writes; one reader process killed mid-stream, the other checked to the end\n",
         (unsigned long long)n);
}

int main(void)
{
  if (!getenv("MCX_NAMESPACE"))
    setenv("MCX_NAMESPACE", "stress_state", 1);
  RUN(writer_and_readers_threads_lockfree);
  RUN(writer_and_readers_threads_global);
  RUN(reader_process_killed_mid_read_changes_nothing);
  return mcx_test_report();
}
