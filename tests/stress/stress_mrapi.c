/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI stress: threads of this process and forked processes hammer one
 * mutex, one semaphore and one reader/writer lock for MCX_STRESS_SECONDS.
 *  - mutex: a non-atomic counter and an "inside" flag in a shared segment;
 *    the flag must never be seen set on entry, the counter must equal the
 *    sum of every participant's tally;
 *  - semaphore (limit 2): an atomic occupancy count never exceeds 2;
 *  - rwlock: writers write a pattern over a whole block, readers check it is
 *    never torn and no reader is inside while a writer is. */
#include <pthread.h>
#include <sys/wait.h>

#include "../unit/test_mrapi_util.h"
#include "common/mcx_atomic.h"

#define THREADS 3
#define PROCS 2
#define BLOCK 32
/* Locks wait at most this long: a peer that died holding one fails the test, not hangs it. */
#define WAIT_MS MCX_TEST_WAIT_MS

typedef struct shared {
  long counter;
  long inside;
  mcx_atomic_u32 sem_in;
  mcx_atomic_u32 readers_in;
  mcx_atomic_u32 writers_in;
  uint64_t block[BLOCK];
  mcx_atomic_u32 errors;
  mcx_atomic_u64 total;
} shared_t;

static double seconds;

static void work(mrapi_node_t node, unsigned seed)
{
  mrapi_status_t st;
  mrapi_info_t info;
  mrapi_initialize(dom, node, 0, &info, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_hndl_t m = mrapi_mutex_get(1, &st);
  mrapi_sem_hndl_t s = mrapi_sem_get(2, &st);
  mrapi_rwl_hndl_t l = mrapi_rwl_get(3, &st);
  mrapi_shmem_hndl_t h = mrapi_shmem_get(4, &st);
  shared_t *sh = mrapi_shmem_attach(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  if (!sh)
    return;
  long mine = 0;
  double end = mcx_test_now() + seconds;
  for (unsigned i = 0; mcx_test_now() < end; i++) {
    seed = seed * 1103515245u + 12345u;
    mrapi_key_t key;
    switch ((seed >> 16) % 4) {
    case 0:
      mrapi_mutex_lock(m, &key, WAIT_MS, &st);
      if (st != MRAPI_SUCCESS) {
        mcx_fetch_add_relaxed(&sh->errors, 1u);
        goto out;
      }
      if (sh->inside)
        mcx_fetch_add_relaxed(&sh->errors, 1u);
      sh->inside = 1;
      sh->counter++;
      mine++;
      sh->inside = 0;
      mrapi_mutex_unlock(m, &key, &st);
      break;
    case 1:
      mrapi_sem_lock(s, (seed >> 8) & 1 ? WAIT_MS : 1, &st);
      if (st == MRAPI_SUCCESS) {
        if (mcx_fetch_add_relaxed(&sh->sem_in, 1u) >= 2)
          mcx_fetch_add_relaxed(&sh->errors, 1u);
        mcx_fetch_sub_relaxed(&sh->sem_in, 1u);
        mrapi_sem_unlock(s, &st);
      } else if (st != MRAPI_TIMEOUT) {
        mcx_fetch_add_relaxed(&sh->errors, 1u);
      }
      break;
    case 2:
      mrapi_rwl_lock(l, MRAPI_RWL_WRITER, WAIT_MS, &st);
      if (st != MRAPI_SUCCESS) {
        mcx_fetch_add_relaxed(&sh->errors, 1u);
        goto out;
      }
      mcx_fetch_add_relaxed(&sh->writers_in, 1u);
      if (mcx_load_relaxed(&sh->readers_in) != 0 || mcx_load_relaxed(&sh->writers_in) != 1)
        mcx_fetch_add_relaxed(&sh->errors, 1u);
      for (int b = 0; b < BLOCK; b++)
        sh->block[b] = seed;
      mcx_fetch_sub_relaxed(&sh->writers_in, 1u);
      mrapi_rwl_unlock(l, MRAPI_RWL_WRITER, &st);
      break;
    default:
      mrapi_rwl_lock(l, MRAPI_RWL_READER, WAIT_MS, &st);
      if (st != MRAPI_SUCCESS) {
        mcx_fetch_add_relaxed(&sh->errors, 1u);
        goto out;
      }
      mcx_fetch_add_relaxed(&sh->readers_in, 1u);
      if (mcx_load_relaxed(&sh->writers_in) != 0)
        mcx_fetch_add_relaxed(&sh->errors, 1u);
      for (int b = 1; b < BLOCK; b++)
        if (sh->block[b] != sh->block[0])
          mcx_fetch_add_relaxed(&sh->errors, 1u);
      mcx_fetch_sub_relaxed(&sh->readers_in, 1u);
      mrapi_rwl_unlock(l, MRAPI_RWL_READER, &st);
      break;
    }
  }
out:
  mcx_fetch_add_relaxed(&sh->total, (uint64_t)mine);
  mrapi_shmem_detach(h, &st);
  mrapi_finalize(&st);
}

static void *thread_main(void *p)
{
  uintptr_t k = (uintptr_t)p;
  work((mrapi_node_t)(10 + k), (unsigned)k * 7919u);
  return NULL;
}

int main(void)
{
  dom = test_domain(2);
  seconds = mcx_test_stress_seconds(3.0);
  mcx_test_current = "mrapi_stress";
  mrapi_status_t st;
  mrapi_info_t info;
  mrapi_initialize(dom, 1, 0, &info, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_create(1, NULL, &st);
  mrapi_sem_create(2, NULL, 2, &st);
  mrapi_rwl_create(3, NULL, 0, &st);
  mrapi_shmem_hndl_t h = mrapi_shmem_create(4, sizeof(shared_t), NULL, 0, NULL, 0, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  shared_t *sh = mrapi_shmem_attach(h, &st);
  pid_t kids[PROCS];
  fflush(NULL);
  for (int p = 0; p < PROCS; p++) {
    kids[p] = fork();
    if (kids[p] == 0) {
      mt_fold();
      mcx_test_failures = 0;
      work((mrapi_node_t)(100 + p), 31u + (unsigned)p);
      mt_fold();
      _exit(mcx_test_failures ? 1 : 0);
    }
  }
  pthread_t t[THREADS];
  for (uintptr_t k = 0; k < THREADS; k++)
    pthread_create(&t[k], NULL, thread_main, (void *)k);
  for (int k = 0; k < THREADS; k++)
    pthread_join(t[k], NULL);
  for (int p = 0; p < PROCS; p++) {
    int ws = 0;
    waitpid(kids[p], &ws, 0);
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  }
  CHECK_EQ_U(mcx_load_relaxed(&sh->errors), 0);
  CHECK_EQ_U(sh->counter, mcx_load_relaxed(&sh->total));
  CHECK(sh->counter > 0);
  printf("mutex sections: %ld\n", sh->counter);
  mrapi_shmem_detach(h, &st);
  mrapi_finalize(&st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK_EQ_U(shm_leftovers(dom), 0);
  mt_fold();
  return mcx_test_report();
}
