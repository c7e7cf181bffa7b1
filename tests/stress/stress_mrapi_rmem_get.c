/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symptom: mrapi_rmem_get() returned MRAPI_ERR_RMEM_INVALID (a status of the
 * calls that take a handle) when another node deleted the remote memory
 * between the get's look-up of the id and its check of the access type: the
 * two steps took the table lock one after the other, and the handle found in
 * the first was stale in the second. The reference's rmem5 (two threads that
 * create or get one key at once) failed a run with that status.
 *
 * Threads race for one key, for MCX_STRESS_SECONDS (default 3): each creates
 * it and deletes it at once when the create succeeds, or gets it when it
 * exists. A get may find the object (MRAPI_SUCCESS) or miss it
 * (MRAPI_ERR_RMEM_ID_INVALID); one thread asks for another access type and
 * may also get MRAPI_ERR_RMEM_ATYPE. Any other status fails the test.
 */
#include <pthread.h>

#include "../unit/test_mrapi_util.h"
#include "common/mcx_atomic.h"

#define THREADS 3
#define KEY 0x5eed
#define WRONG_TYPE_THREAD 2 /* asks for MRAPI_RMEM_DMA; the object is DUMMY */

static double seconds;
static char buffer[64];
static mcx_atomic_u32 stop; /* relaxed: a flag that publishes nothing */
static pthread_barrier_t start;

typedef struct tally {
  unsigned long created, found, missed, wrong_type, bad;
} tally_t;

static tally_t tallies[THREADS];

static void *racer(void *arg)
{
  int me = (int)(intptr_t)arg;
  tally_t *t = &tallies[me];
  mrapi_rmem_atype_t want = me == WRONG_TYPE_THREAD ? MRAPI_RMEM_DMA : MRAPI_RMEM_DUMMY;
  init_node((mrapi_node_t)(1 + me));
  pthread_barrier_wait(&start);
  double end = mcx_test_now() + seconds;
  for (unsigned long i = 0; !mcx_load_relaxed(&stop); i++) {
    if ((i & 255) == 0 && mcx_test_now() > end)
      break;
    mrapi_status_t st;
    mrapi_rmem_hndl_t h = mrapi_rmem_create(KEY, buffer, MRAPI_RMEM_DUMMY, NULL, sizeof buffer, &st);
    if (st == MRAPI_SUCCESS) {
      t->created++;
      mrapi_rmem_delete(h, &st);
      CHECK_MRAPI(st, MRAPI_SUCCESS);
      continue;
    }
    CHECK_MRAPI(st, MRAPI_ERR_RMEM_EXISTS);
    mrapi_rmem_get(KEY, want, &st);
    if (st == MRAPI_SUCCESS && want == MRAPI_RMEM_DUMMY)
      t->found++;
    else if (st == MRAPI_ERR_RMEM_ID_INVALID)
      t->missed++;
    else if (st == MRAPI_ERR_RMEM_ATYPE && want == MRAPI_RMEM_DMA)
      t->wrong_type++;
    else {
      t->bad++;
      CHECK_MRAPI(st, MRAPI_ERR_RMEM_ID_INVALID); /* reports the status */
      mcx_store_relaxed(&stop, 1u);
    }
  }
  fini_node();
  return NULL;
}

TEST(get_racing_create_and_delete_reports_found_or_missing)
{
  pthread_t th[THREADS];
  pthread_barrier_init(&start, NULL, THREADS);
  for (int i = 0; i < THREADS; i++)
    pthread_create(&th[i], NULL, racer, (void *)(intptr_t)i);
  for (int i = 0; i < THREADS; i++)
    pthread_join(th[i], NULL);
  pthread_barrier_destroy(&start);
  tally_t sum = {0};
  for (int i = 0; i < THREADS; i++) {
    sum.created += tallies[i].created;
    sum.found += tallies[i].found;
    sum.missed += tallies[i].missed;
    sum.wrong_type += tallies[i].wrong_type;
    sum.bad += tallies[i].bad;
  }
  printf("  %lu creations, gets: %lu found, %lu missed, %lu of another type, %lu with another status\n", sum.created,
         sum.found, sum.missed, sum.wrong_type, sum.bad);
  CHECK(sum.created > 0 && sum.found > 0);
  CHECK_EQ_U(sum.bad, 0);
}

int main(void)
{
  seconds = mcx_test_stress_seconds(3.0);
  dom = test_domain(6);
  setvbuf(stdout, NULL, _IONBF, 0);
  RUN(get_racing_create_and_delete_reports_found_or_missing);
  CHECK_EQ_U(shm_leftovers(dom), 0);
  mt_fold();
  return mcx_test_report();
}
