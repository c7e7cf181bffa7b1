/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI across processes (fork): objects found by id from another process,
 * mutual exclusion through a shared segment, a mutex whose holder dies, a
 * partition left behind by a crashed run, and no /dev/shm leftovers. */
#include <signal.h>
#include <sys/wait.h>

#include "test_mrapi_util.h"

static void child_exit(void)
{
  mt_fold();
  _exit(mcx_test_failures ? 1 : 0);
}

/* fork() for a test: the child starts with a clean failure count. */
static pid_t test_fork(void)
{
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    mt_fold();
    mcx_test_failures = 0;
  }
  return pid;
}

#define ROUNDS 5000

static void count_rounds(mrapi_mutex_hndl_t m, long *counter)
{
  mrapi_status_t st;
  mrapi_key_t key;
  for (int i = 0; i < ROUNDS; i++) {
    mrapi_mutex_lock(m, &key, MRAPI_TIMEOUT_INFINITE, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    long v = *counter; /* a non-atomic read-modify-write: only the mutex makes it exact */
    *counter = v + 1;
    mrapi_mutex_unlock(m, &key, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
  }
}

TEST(mutex_and_shmem_across_processes)
{
  init_node(1);
  mrapi_status_t st;
  mrapi_mutex_hndl_t m = mrapi_mutex_create(100, NULL, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_shmem_hndl_t h = mrapi_shmem_create(200, 4096, NULL, 0, NULL, 0, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_sem_hndl_t done = mrapi_sem_create(300, NULL, 2, &st);
  CHECK(mrapi_sem_trylock(done, &st));
  CHECK(mrapi_sem_trylock(done, &st));
  long *counter = mrapi_shmem_attach(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  pid_t kids[2];
  for (int k = 0; k < 2; k++) {
    kids[k] = test_fork();
    if (kids[k] == 0) {
      mrapi_status_t cst;
      mrapi_key_t key;
      /* A forked child is not its parent's node. */
      mrapi_mutex_lock(m, &key, 0, &cst);
      CHECK_MRAPI(cst, MRAPI_ERR_NODE_NOTINIT);
      init_node(10 + (mrapi_node_t)k);
      mrapi_mutex_hndl_t cm = mrapi_mutex_get(100, &cst);
      CHECK_MRAPI(cst, MRAPI_SUCCESS);
      mrapi_shmem_hndl_t ch = mrapi_shmem_get(200, &cst);
      long *c = mrapi_shmem_attach(ch, &cst);
      CHECK_MRAPI(cst, MRAPI_SUCCESS);
      if (c)
        count_rounds(cm, c);
      mrapi_shmem_detach(ch, &cst);
      mrapi_sem_hndl_t cd = mrapi_sem_get(300, &cst);
      mrapi_sem_unlock(cd, &cst); /* tell the parent we are done */
      CHECK_MRAPI(cst, MRAPI_SUCCESS);
      fini_node();
      child_exit();
    }
  }
  count_rounds(m, counter);
  for (int k = 0; k < 2; k++) {
    mrapi_sem_lock(done, MRAPI_TIMEOUT_INFINITE, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
  }
  for (int k = 0; k < 2; k++)
    CHECK_EQ_U(wait_child(kids[k]), 0);
  CHECK_EQ_U(*counter, 3 * ROUNDS);
  mrapi_shmem_detach(h, &st);
  fini_node();
  CHECK_EQ_U(shm_leftovers(dom), 0);
}

TEST(mutex_owner_death_is_reported_to_next_owner)
{
  init_node(1);
  mrapi_status_t st;
  mrapi_mutex_hndl_t m = mrapi_mutex_create(101, NULL, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  int pipefd[2];
  CHECK(pipe(pipefd) == 0);
  pid_t kid = test_fork();
  if (kid == 0) {
    mrapi_status_t cst;
    mrapi_key_t key;
    init_node(20);
    mrapi_mutex_hndl_t cm = mrapi_mutex_get(101, &cst);
    mrapi_mutex_lock(cm, &key, MRAPI_TIMEOUT_INFINITE, &cst);
    char c = cst == MRAPI_SUCCESS ? 'L' : 'E';
    (void)!write(pipefd[1], &c, 1);
    _exit(0); /* dies holding the mutex, without finalize */
  }
  char c = 0;
  CHECK(read(pipefd[0], &c, 1) == 1 && c == 'L');
  close(pipefd[0]);
  close(pipefd[1]);
  mrapi_key_t key;
  /* Before the child is reaped it is a zombie: it must count as dead already. */
  mrapi_mutex_lock(m, &key, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_OWNER_DIED);
  CHECK(key == 0);
  /* We hold it now; it works as usual afterwards. */
  mrapi_mutex_unlock(m, &key, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_lock(m, &key, 0, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_unlock(m, &key, &st);
  CHECK_EQ_U(wait_child(kid), 0);
  mrapi_mutex_delete(m, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
  CHECK_EQ_U(shm_leftovers(dom), 0);
}

TEST(trylock_takes_over_from_dead_owner)
{
  init_node(1);
  mrapi_status_t st;
  mrapi_mutex_hndl_t m = mrapi_mutex_create(102, NULL, &st);
  pid_t kid = test_fork();
  if (kid == 0) {
    mrapi_status_t cst;
    mrapi_key_t key;
    init_node(21);
    mrapi_mutex_lock(mrapi_mutex_get(102, &cst), &key, MRAPI_TIMEOUT_INFINITE, &cst);
    _exit(cst == MRAPI_SUCCESS ? 0 : 1);
  }
  CHECK_EQ_U(wait_child(kid), 0);
  mrapi_key_t key;
  CHECK(mrapi_mutex_trylock(m, &key, &st));
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_OWNER_DIED);
  mrapi_mutex_unlock(m, &key, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

TEST(stale_partition_of_crashed_run_is_recovered)
{
  pid_t kid = test_fork();
  if (kid == 0) {
    mrapi_status_t cst;
    mrapi_key_t key;
    init_node(30);
    mrapi_mutex_hndl_t cm = mrapi_mutex_create(103, NULL, &cst);
    mrapi_mutex_lock(cm, &key, MRAPI_TIMEOUT_INFINITE, &cst);
    mrapi_shmem_create(104, 64, NULL, 0, NULL, 0, &cst);
    mrapi_sem_create(105, NULL, 1, &cst);
    _exit(cst == MRAPI_SUCCESS ? 0 : 1); /* crash: no finalize */
  }
  CHECK_EQ_U(wait_child(kid), 0);
  CHECK_EQ_U(shm_leftovers(dom), 2); /* partition + segment left behind */
  init_node(30); /* same node id: the dead node is reaped */
  mrapi_status_t st;
  mrapi_mutex_get(103, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_ID_INVALID); /* the crashed run's objects are gone */
  mrapi_mutex_create(103, NULL, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK_EQ_U(shm_leftovers(dom), 1);
  fini_node();
  CHECK_EQ_U(shm_leftovers(dom), 0);
}

TEST(semaphore_and_rwlock_across_processes)
{
  init_node(1);
  mrapi_status_t st;
  mrapi_rwl_hndl_t l = mrapi_rwl_create(106, NULL, 0, &st);
  mrapi_sem_hndl_t s = mrapi_sem_create(107, NULL, 1, &st);
  CHECK(mrapi_sem_trylock(s, &st));
  mrapi_rwl_lock(l, MRAPI_RWL_WRITER, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  pid_t kid = test_fork();
  if (kid == 0) {
    mrapi_status_t cst;
    init_node(40);
    mrapi_rwl_hndl_t cl = mrapi_rwl_get(106, &cst);
    CHECK(!mrapi_rwl_trylock(cl, MRAPI_RWL_READER, &cst));
    CHECK_MRAPI(cst, MRAPI_ERR_RWL_LOCKED);
    mrapi_sem_unlock(mrapi_sem_get(107, &cst), &cst); /* "I tried" */
    mrapi_rwl_lock(cl, MRAPI_RWL_READER, MRAPI_TIMEOUT_INFINITE, &cst); /* blocks until the writer leaves */
    CHECK_MRAPI(cst, MRAPI_SUCCESS);
    mrapi_rwl_unlock(cl, MRAPI_RWL_READER, &cst);
    fini_node();
    child_exit();
  }
  mrapi_sem_lock(s, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rwl_unlock(l, MRAPI_RWL_WRITER, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK_EQ_U(wait_child(kid), 0);
  fini_node();
  CHECK_EQ_U(shm_leftovers(dom), 0);
}

int main(void)
{
  dom = test_domain(1);
  RUN(mutex_and_shmem_across_processes);
  RUN(mutex_owner_death_is_reported_to_next_owner);
  RUN(trylock_takes_over_from_dead_owner);
  RUN(stale_partition_of_crashed_run_is_recovered);
  RUN(semaphore_and_rwlock_across_processes);
  CHECK_EQ_U(shm_leftovers(dom), 0);
  mt_fold();
  return mcx_test_report();
}
