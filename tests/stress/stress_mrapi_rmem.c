/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI remote memory and dead holders under load, for MCX_STRESS_SECONDS.
 *  - remote memory: the main thread owns a buffer of records {writer, seq,
 *    56 bytes of (seq & 0xff)}; two writer nodes (one DUMMY, one through the
 *    DMA engine) rewrite their own records with growing seq, a reader node and
 *    a reader process (process_vm copies) read them back: a record must never
 *    be torn (bytes of two writes) and its seq must never go backwards (under
 *    qemu-user, which has no process_vm copies, the reader process only checks
 *    that its reads report MRAPI_ERR_NOT_SUPPORTED);
 *  - dead holders: children take units of a semaphore (limit 4) and a read
 *    hold of an rwlock, and half of them exit without releasing; the parent
 *    keeps locking and unlocking. At the end every unit can be taken again
 *    and the rwlock taken for writing: nothing was lost, nothing given twice. */
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>

#include "../unit/test_mrapi_util.h"
#include "common/mcx_atomic.h"

#define RECORDS 8
#define LIMIT 4

typedef struct record {
  uint32_t writer, seq;
  uint8_t fill[56];
} record_t;

static double seconds;
static record_t remote[2][RECORDS]; /* [0]: DUMMY object, [1]: DMA object */
static mcx_atomic_u32 stop;
/* Set by the in-process reader once it has checked a record: the writers
 * are not stopped before (a loaded machine, or an emulator, may not have
 * run the reader or the writers at all by the time the reader process ends). */
static mcx_atomic_u32 reader_progress;
static int cross_unsupported; /* the reader process: copies from another process are not supported here */

static mrapi_rmem_hndl_t attach(int which)
{
  mrapi_status_t st;
  mrapi_rmem_atype_t t = which ? MRAPI_RMEM_DMA : MRAPI_RMEM_DUMMY;
  mrapi_rmem_hndl_t h = mrapi_rmem_get(100 + which, t, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rmem_attach(h, t, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  return h;
}

static void *writer(void *arg)
{
  int which = (int)(intptr_t)arg;
  init_node(10 + (mrapi_node_t)which);
  mrapi_rmem_hndl_t h = attach(which);
  mrapi_status_t st;
  record_t r;
  for (uint32_t seq = 1; !mcx_load_relaxed(&stop); seq++) {
    for (uint32_t k = 0; k < RECORDS; k++) {
      r.writer = (uint32_t)which;
      r.seq = seq;
      memset(r.fill, (int)(seq & 0xff), sizeof r.fill);
      if (which == 0) {
        mrapi_rmem_write(h, k * sizeof r, &r, 0, sizeof r, 1, sizeof r, sizeof r, &st);
      } else {
        mrapi_request_t q;
        size_t n;
        mrapi_rmem_write_i(h, k * sizeof r, &r, 0, sizeof r, 1, sizeof r, sizeof r, &q, &st);
        if (st == MRAPI_SUCCESS)
          mrapi_wait(&q, &n, MRAPI_TIMEOUT_INFINITE, &st);
      }
      CHECK_MRAPI(st, MRAPI_SUCCESS);
    }
  }
  mrapi_rmem_detach(h, &st);
  fini_node();
  return NULL;
}

/* Reads every record of both objects until told to stop; returns records checked. */
static unsigned long read_and_check(mrapi_node_t node, double until)
{
  init_node(node);
  mrapi_rmem_hndl_t h[2] = {attach(0), attach(1)};
  uint32_t last[2][RECORDS] = {{0}};
  unsigned long checked = 0;
  mrapi_status_t st;
  while (until ? mcx_test_now() < until : !mcx_load_relaxed(&stop)) {
    for (int w = 0; w < 2; w++) {
      record_t got[RECORDS];
      mrapi_rmem_read(h[w], 0, got, 0, sizeof got, 1, sizeof got, sizeof got, &st);
      if (rmem_cross_unsupported(st)) {
        cross_unsupported = 1;
        break;
      }
      CHECK_MRAPI(st, MRAPI_SUCCESS);
      for (int k = 0; k < RECORDS; k++) {
        record_t *r = &got[k];
        if (r->seq == 0)
          continue; /* not written yet */
        CHECK(r->writer == (uint32_t)w);
        CHECK(r->seq >= last[w][k]);
        last[w][k] = r->seq;
        for (size_t b = 0; b < sizeof r->fill; b++)
          if (r->fill[b] != (uint8_t)(r->seq & 0xff)) {
            CHECK(!"torn record");
            break;
          }
        checked++;
      }
    }
    if (checked && !until)
      mcx_store_relaxed(&reader_progress, 1u);
    if (cross_unsupported)
      break;
  }
  mrapi_rmem_detach(h[0], &st);
  mrapi_rmem_detach(h[1], &st);
  fini_node();
  return checked;
}

static void *reader(void *arg)
{
  (void)arg;
  unsigned long n = read_and_check(20, 0);
  CHECK(n > 0);
  return NULL;
}

TEST(remote_memory_records_are_never_torn)
{
  mrapi_status_t st;
  init_node(1);
  mrapi_rmem_create(100, remote[0], MRAPI_RMEM_DUMMY, NULL, sizeof remote[0], &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rmem_create(101, remote[1], MRAPI_RMEM_DMA, NULL, sizeof remote[1], &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  pthread_t t[3];
  pthread_create(&t[0], NULL, writer, (void *)(intptr_t)0);
  pthread_create(&t[1], NULL, writer, (void *)(intptr_t)1);
  pthread_create(&t[2], NULL, reader, NULL);
  pid_t kid = fork();
  if (kid == 0) {
    unsigned long n = read_and_check(30, mcx_test_now() + seconds);
    if (cross_unsupported)
      printf("  (reader process: copies from another process not supported under %s, which does not emulate "
             "process_vm_readv; left out)\n",
             test_emulator());
    else
      CHECK(n > 0);
    fflush(stdout); /* _exit does not flush */
    mt_fold();
    _exit(mcx_test_failures ? 1 : 0);
  }
  int ws = 0;
  while (waitpid(kid, &ws, 0) < 0) {
  }
  CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  /* Event: the readers checked something (a reader that never does fails below). */
  MCX_TEST_AWAIT(mcx_load_relaxed(&reader_progress));
  mcx_store_relaxed(&stop, 1u);
  for (int i = 0; i < 3; i++)
    pthread_join(t[i], NULL);
  mrapi_rmem_delete(mrapi_rmem_get(100, MRAPI_RMEM_DUMMY, &st), &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rmem_delete(mrapi_rmem_get(101, MRAPI_RMEM_DMA, &st), &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

TEST(units_of_dying_processes_are_never_lost)
{
  mrapi_status_t st;
  init_node(1);
  mrapi_sem_hndl_t s = mrapi_sem_create(200, NULL, LIMIT, &st);
  mrapi_rwl_hndl_t l = mrapi_rwl_create(201, NULL, 0, &st);
  double end = mcx_test_now() + seconds;
  unsigned children = 0, died = 0;
  for (unsigned i = 0; mcx_test_now() < end; i++) {
    pid_t kid = fork();
    if (kid == 0) {
      init_node(2 + (i % 8));
      mrapi_sem_hndl_t cs = mrapi_sem_get(200, &st);
      mrapi_rwl_hndl_t cl = mrapi_rwl_get(201, &st);
      int take = 1 + (int)(i % 2);
      for (int u = 0; u < take; u++) {
        mrapi_sem_lock(cs, MRAPI_TIMEOUT_INFINITE, &st);
        CHECK(st == MRAPI_SUCCESS || st == MRAPI_ERR_SEM_OWNER_DIED);
      }
      mrapi_rwl_lock(cl, MRAPI_RWL_READER, MRAPI_TIMEOUT_INFINITE, &st);
      CHECK(st == MRAPI_SUCCESS || st == MRAPI_ERR_RWL_OWNER_DIED);
      if (i % 4 < 2) {
        mt_fold();
        _exit(mcx_test_failures ? 1 : 0); /* dies holding them */
      }
      for (int u = 0; u < take; u++)
        mrapi_sem_unlock(cs, &st);
      mrapi_rwl_unlock(cl, MRAPI_RWL_READER, &st);
      fini_node();
      mt_fold();
      _exit(mcx_test_failures ? 1 : 0);
    }
    /* The parent uses the semaphore meanwhile. */
    mrapi_sem_lock(s, MRAPI_TIMEOUT_INFINITE, &st);
    CHECK(st == MRAPI_SUCCESS || st == MRAPI_ERR_SEM_OWNER_DIED);
    died += st == MRAPI_ERR_SEM_OWNER_DIED;
    mrapi_sem_unlock(s, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    int ws = 0;
    while (waitpid(kid, &ws, 0) < 0) {
    }
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    children++;
  }
  /* Everything comes back: all units, and the lock for writing. */
  for (int u = 0; u < LIMIT; u++) {
    mrapi_sem_lock(s, MCX_TEST_WAIT_MS, &st);
    CHECK(st == MRAPI_SUCCESS || st == MRAPI_ERR_SEM_OWNER_DIED);
  }
  CHECK(!mrapi_sem_trylock(s, &st));
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKED);
  mrapi_rwl_lock(l, MRAPI_RWL_WRITER, MCX_TEST_WAIT_MS, &st);
  CHECK(st == MRAPI_SUCCESS || st == MRAPI_ERR_RWL_OWNER_DIED);
  mrapi_rwl_unlock(l, MRAPI_RWL_WRITER, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  for (int u = 0; u < LIMIT; u++)
    mrapi_sem_unlock(s, &st);
  printf("  %u children, half of them died holding units; %u owner-died reports to the parent\n", children, died);
  CHECK(children > 0);
  fini_node();
}

int main(void)
{
  seconds = mcx_test_stress_seconds(3.0);
  dom = test_domain(5);
  setvbuf(stdout, NULL, _IONBF, 0);
  RUN(remote_memory_records_are_never_torn);
  RUN(units_of_dying_processes_are_never_lost);
  CHECK_EQ_U(shm_leftovers(dom), 0);
  mt_fold();
  return mcx_test_report();
}
