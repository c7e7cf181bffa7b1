/* SPDX-License-Identifier: BSD-3-Clause */
/* Stress: PI semaphore, counting semaphore and events with the
 * next-semaphore hint, shared by several processes with several threads each.
 * Every thread mixes plain locks, hinted event waits (PI and counting) and
 * posts; a non-atomic counter under S and a unit check under C catch any
 * breach of mutual exclusion, and a final post that must be consumed within a
 * bound catches lost wake-ups. Bounded by MCX_STRESS_SECONDS. */
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcx.h"
#include "mcx_test.h"

enum { NPROC = 3, NTHREAD = 3 };

typedef struct shm {
  mcx_pisem_t s;
  mcx_csem_t c;
  mcx_event_t ev;  /* hinted with s */
  mcx_event_t evc; /* hinted with c */
  long under_s;    /* only under s */
  long in_c;       /* holders of c's single unit, under c */
  atomic_long locks, consumed, consumed_c, posts, errors;
  atomic_int stop;
} shm_t;

static shm_t *S;
static double secs;

static void bad(const char *what)
{
  if (atomic_fetch_add(&S->errors, 1) < 5)
    fprintf(stderr, "stress_pisem: %s (pid %d)\n", what, (int)getpid());
}

static void in_s(void)
{
  long v = S->under_s;
  if ((v & 7) == 0)
    sched_yield(); /* widen the window for a breach */
  S->under_s = v + 1;
  atomic_fetch_add(&S->locks, 1);
}

static void *worker(void *arg)
{
  unsigned seed = (unsigned)(uintptr_t)arg * 7919u + (unsigned)getpid();
  while (!atomic_load(&S->stop)) {
    int op = (int)(rand_r(&seed) % 6);
    mcx_sem_status_t r;
    switch (op) {
    case 0:
      r = mcx_pisem_lock(&S->s, MCX_TEST_WAIT_MS);
      if (r != MCX_SEM_OK) {
        bad("lock");
        break;
      }
      in_s();
      if (mcx_pisem_unlock(&S->s) != MCX_SEM_OK)
        bad("unlock");
      break;
    case 1:
      r = mcx_event_wait_then_lock(&S->ev, &S->s, 5);
      if (r == MCX_SEM_TIMEOUT)
        break;
      if (r != MCX_SEM_OK) {
        bad("wait_then_lock");
        break;
      }
      if (mcx_pisem_owner(&S->s) != (uint32_t)gettid())
        bad("not owner after wait_then_lock");
      in_s();
      atomic_fetch_add(&S->consumed, 1);
      mcx_pisem_unlock(&S->s);
      break;
    case 2:
      r = mcx_event_wait_then_acquire(&S->evc, &S->c, 5);
      if (r == MCX_SEM_TIMEOUT)
        break;
      if (r != MCX_SEM_OK) {
        bad("wait_then_acquire");
        break;
      }
      if (S->in_c++ != 0)
        bad("two holders of the counting semaphore's unit");
      S->in_c--;
      atomic_fetch_add(&S->consumed_c, 1);
      mcx_csem_release(&S->c);
      break;
    case 3: /* post while holding s */
      if (mcx_pisem_lock(&S->s, MCX_TEST_WAIT_MS) != MCX_SEM_OK) {
        bad("lock");
        break;
      }
      in_s();
      mcx_event_post(&S->ev);
      atomic_fetch_add(&S->posts, 1);
      mcx_pisem_unlock(&S->s);
      break;
    case 4:
      mcx_event_post(&S->ev);
      mcx_event_post(&S->evc);
      atomic_fetch_add(&S->posts, 1);
      break;
    default: /* post while holding c */
      if (mcx_csem_acquire(&S->c, MCX_TEST_WAIT_MS) != MCX_SEM_OK) {
        bad("acquire");
        break;
      }
      if (S->in_c++ != 0)
        bad("two holders of the counting semaphore's unit");
      S->in_c--;
      mcx_event_post(&S->evc);
      mcx_csem_release(&S->c);
      break;
    }
  }
  return NULL;
}

static void run_process(int id)
{
  pthread_t t[NTHREAD];
  for (int i = 0; i < NTHREAD; i++)
    pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(id * NTHREAD + i + 1));
  for (int i = 0; i < NTHREAD; i++)
    pthread_join(t[i], NULL);
}

static void *run_self(void *arg)
{
  (void)arg;
  run_process(0);
  return NULL;
}

/* A waiter asleep on the event must get a final post, with s held or not. */
static atomic_long final_tid; /* the final waiter's, set before it waits */

static void *final_waiter(void *arg)
{
  (void)arg;
  atomic_store(&final_tid, mcx_test_tid());
  mcx_sem_status_t r = mcx_event_wait_then_lock(&S->ev, &S->s, MCX_TEST_WAIT_MS);
  if (r != MCX_SEM_OK)
    bad("final post not delivered");
  else
    mcx_pisem_unlock(&S->s);
  return NULL;
}

int main(void)
{
  secs = mcx_test_stress_seconds(2.0);
  S = mmap(NULL, sizeof *S, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(S != MAP_FAILED);
  memset(S, 0, sizeof *S);
  mcx_pisem_init(&S->s, MCX_SEM_SHARED);
  mcx_csem_init(&S->c, 1, 1, MCX_SEM_SHARED);
  mcx_event_init(&S->ev, MCX_SEM_SHARED);
  mcx_event_init(&S->evc, MCX_SEM_SHARED);
  pid_t pids[NPROC];
  for (int p = 1; p < NPROC; p++) {
    pids[p] = fork();
    if (pids[p] == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a failed parent */
      run_process(p);
      _exit(0);
    }
  }
  pthread_t self_workers;
  pthread_create(&self_workers, NULL, run_self, NULL);
  double t0 = mcx_test_now();
  while (mcx_test_now() - t0 < secs && atomic_load(&S->errors) == 0)
    usleep(10000);
  atomic_store(&S->stop, 1);
  pthread_join(self_workers, NULL);
  for (int p = 1; p < NPROC; p++) {
    int ws = 0;
    waitpid(pids[p], &ws, 0);
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  }
  CHECK_EQ_U(atomic_load(&S->errors), 0);
  CHECK_EQ_U(S->under_s, atomic_load(&S->locks));
  CHECK(atomic_load(&S->consumed) <= atomic_load(&S->posts));
  CHECK(mcx_pisem_owner(&S->s) == 0);
  CHECK_EQ_U(mcx_csem_value(&S->c), 1);
  /* Drain, then a last delivery check in both cases (S free, S held). */
  while (mcx_event_wait(&S->ev, 0) == MCX_SEM_OK)
    ;
  for (int held = 0; held <= 1; held++) {
    pthread_t w;
    atomic_store(&final_tid, 0);
    pthread_create(&w, NULL, final_waiter, NULL);
    /* Event: the final waiter is asleep in its wait (the check holds either way). */
    MCX_TEST_AWAIT(atomic_load(&final_tid) && mcx_test_thread_asleep(atomic_load(&final_tid)));
    if (held)
      mcx_pisem_lock(&S->s, MCX_TEST_WAIT_MS);
    mcx_event_post(&S->ev);
    if (held) {
      /* Event: it is asleep again, now on S (the post moved it there). */
      MCX_TEST_AWAIT(mcx_test_thread_asleep(atomic_load(&final_tid)));
      mcx_pisem_unlock(&S->s);
    }
    pthread_join(w, NULL);
  }
  CHECK_EQ_U(atomic_load(&S->errors), 0);
  printf("stress_pisem: %d processes x %d threads, %.1f s: %ld locks, %ld posts, %ld hinted PI "
         "waits, %ld hinted "
         "counting waits\n",
         NPROC, NTHREAD, secs, atomic_load(&S->locks), atomic_load(&S->posts),
         atomic_load(&S->consumed), atomic_load(&S->consumed_c));
  munmap(S, sizeof *S);
  return mcx_test_report();
}
