/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI in one process: nodes, every primitive, the spec's status for each
 * misuse, timeouts, handles of the wrong kind and stale handles, atomics. */
#include <pthread.h>

#include "test_mrapi_util.h"

TEST(node_lifecycle_statuses)
{
  mrapi_status_t st;
  mrapi_info_t info;
  mrapi_finalize(&st);
  CHECK_MRAPI(st, MRAPI_ERR_NODE_NOTINIT);
  mrapi_node_id_get(&st);
  CHECK_MRAPI(st, MRAPI_ERR_NODE_NOTINIT);
  mrapi_initialize(dom, 1, 0, NULL, &st);
  CHECK_MRAPI(st, MRAPI_ERR_PARAMETER);
  mrapi_initialize(dom, 1, 0, &info, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(strstr(info.mrapi_version, "1.0") != NULL);
  mrapi_initialize(dom, 1, 0, &info, &st);
  CHECK_MRAPI(st, MRAPI_ERR_NODE_INITIALIZED);
  CHECK_EQ_U(mrapi_node_id_get(&st), 1);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK_EQ_U(mrapi_domain_id_get(&st), dom);
  CHECK(shm_leftovers(dom) == 1);
  fini_node();
  CHECK(shm_leftovers(dom) == 0);
}

static void try_same_node_id(void *arg)
{
  (void)arg;
}

static void *dup_node_thread(void *p)
{
  mrapi_status_t st;
  mrapi_info_t info;
  mrapi_initialize(dom, 7, 0, &info, &st);
  *(mrapi_status_t *)p = st;
  if (st == MRAPI_SUCCESS)
    mrapi_finalize(&st);
  return NULL;
}

TEST(node_id_taken_by_live_node)
{
  init_node(7);
  mrapi_status_t st = MRAPI_SUCCESS;
  pthread_t t;
  pthread_create(&t, NULL, dup_node_thread, &st);
  pthread_join(t, NULL);
  CHECK_MRAPI(st, MRAPI_ERR_NODE_INITFAILED);
  on_other_node(8, try_same_node_id, NULL);
  fini_node();
}

/* A node's thread exits without mrapi_finalize; the process's next node
 * reaps it and, the last one, closes the domain. The process still counted the
 * gone node in the domain: a later initialize joins anew (it used to find the
 * closed partition again and again, for ever). */
static mrapi_domain_t closed_dom;
static atomic_int closed_done;

static void *init_and_exit(void *arg)
{
  mrapi_status_t st;
  mrapi_info_t info;
  mrapi_initialize(closed_dom, (mrapi_node_t)(uintptr_t)arg, 0, &info, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  return NULL; /* no finalize */
}

static void *join_and_leave(void *arg)
{
  mrapi_status_t st;
  mrapi_info_t info;
  mrapi_initialize(closed_dom, (mrapi_node_t)(uintptr_t)arg, 0, &info, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_create(5, NULL, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_finalize(&st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  return NULL;
}

static void *closed_domain_steps(void *arg)
{
  (void)arg;
  pthread_t t;
  pthread_create(&t, NULL, init_and_exit, (void *)(uintptr_t)1);
  pthread_join(t, NULL);
  for (uintptr_t node = 2; node <= 4; node++) { /* 2 closes the domain; 3 and 4 join anew */
    pthread_create(&t, NULL, join_and_leave, (void *)node);
    pthread_join(t, NULL);
  }
  atomic_store(&closed_done, 1);
  return NULL;
}

TEST(domain_closed_under_a_node_that_exited_is_joined_anew)
{
  closed_dom = test_domain(1);
  pthread_t t;
  pthread_create(&t, NULL, closed_domain_steps, NULL);
  /* Bounded: a stuck initialize is reported, not waited for. */
  double until = mcx_test_now() + mcx_test_ceiling_ms(60000) / 1000.0;
  while (!atomic_load(&closed_done) && mcx_test_now() < until)
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  if (!atomic_load(&closed_done)) {
    fprintf(stderr, "%s: [%s] mrapi_initialize did not return (hung)\n", __FILE__, mcx_test_current);
    _exit(1);
  }
  pthread_join(t, NULL);
  CHECK(shm_leftovers(closed_dom) == 0);
}

/* ------------------------------------------------------------ mutexes */

static void lock_is_busy(void *arg)
{
  mrapi_mutex_hndl_t m = *(mrapi_mutex_hndl_t *)arg;
  mrapi_status_t st;
  mrapi_key_t key;
  CHECK(!mrapi_mutex_trylock(m, &key, &st));
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_LOCKED);
  mrapi_mutex_lock(m, &key, 20, &st);
  CHECK_MRAPI(st, MRAPI_TIMEOUT);
  mrapi_mutex_lock(m, &key, MRAPI_TIMEOUT_IMMEDIATE, &st);
  CHECK_MRAPI(st, MRAPI_TIMEOUT);
  key = 0;
  mrapi_mutex_unlock(m, &key, &st); /* not ours */
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_NOTLOCKED);
  mrapi_mutex_delete(m, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_LOCKED);
  /* Found by id from another node. */
  CHECK_EQ_U(mrapi_mutex_get(42, &st), m);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
}

TEST(mutex_statuses)
{
  init_node(1);
  mrapi_status_t st;
  mrapi_key_t key = -1;
  mrapi_mutex_hndl_t m = mrapi_mutex_create(42, NULL, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_create(42, NULL, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_EXISTS);
  mrapi_mutex_get(0xdead, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_ID_INVALID);
  mrapi_mutex_unlock(m, &key, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_NOTLOCKED);
  mrapi_mutex_lock(m, NULL, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_MRAPI(st, MRAPI_ERR_PARAMETER);
  mrapi_mutex_lock(m, &key, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(key == 0);
  mrapi_key_t k2;
  mrapi_mutex_lock(m, &k2, 10, &st); /* not recursive: would deadlock */
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_LOCKED);
  on_other_node(2, lock_is_busy, &m);
  mrapi_key_t bad = 5;
  mrapi_mutex_unlock(m, &bad, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_KEY);
  mrapi_mutex_unlock(m, &key, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_delete(m, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_delete(m, &st); /* double delete */
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_INVALID);
  mrapi_mutex_lock(m, &key, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_INVALID);
  mrapi_mutex_lock(0, &key, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_INVALID);
  /* The wrong kind of handle. */
  mrapi_sem_hndl_t s = mrapi_sem_create(42, NULL, 1, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_lock(s, &key, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_INVALID);
  mrapi_sem_delete(s, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

TEST(mutex_recursive_keys_and_order)
{
  init_node(1);
  mrapi_status_t st;
  mrapi_mutex_attributes_t a;
  mrapi_boolean_t yes = MRAPI_TRUE, got = MRAPI_FALSE;
  mrapi_mutex_init_attributes(&a, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_set_attribute(&a, MRAPI_MUTEX_RECURSIVE, &yes, sizeof yes, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_set_attribute(&a, MRAPI_ERROR_EXT, &yes, sizeof yes, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_set_attribute(&a, MRAPI_SHMEM_SIZE, &yes, sizeof yes, &st);
  CHECK_MRAPI(st, MRAPI_ERR_ATTR_NUM);
  mrapi_mutex_set_attribute(&a, MRAPI_MUTEX_RECURSIVE, &yes, 3, &st);
  CHECK_MRAPI(st, MRAPI_ERR_ATTR_SIZE);
  mrapi_mutex_hndl_t m = mrapi_mutex_create(MRAPI_MUTEX_ID_ANY, &a, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_mutex_get_attribute(m, MRAPI_MUTEX_RECURSIVE, &got, sizeof got, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(got == MRAPI_TRUE);
  mrapi_key_t k[3];
  for (int i = 0; i < 3; i++) {
    mrapi_mutex_lock(m, &k[i], MRAPI_TIMEOUT_INFINITE, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    CHECK(k[i] == i);
  }
  mrapi_mutex_unlock(m, &k[0], &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_LOCKORDER);
  for (int i = 2; i >= 0; i--) {
    mrapi_mutex_unlock(m, &k[i], &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
  }
  mrapi_mutex_unlock(m, &k[0], &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_NOTLOCKED);
  mrapi_mutex_delete(m, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  /* ERROR_EXT: a stale handle is reported as deleted. */
  mrapi_mutex_lock(m, &k[0], 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_DELETED);
  fini_node();
}

/* Hand a mutex between two nodes many times; the counter must add up. */
typedef struct {
  mrapi_mutex_hndl_t m;
  long *counter;
  int rounds;
} counter_arg_t;

static void count_under_mutex(void *p)
{
  counter_arg_t *a = p;
  mrapi_status_t st;
  mrapi_key_t key;
  for (int i = 0; i < a->rounds; i++) {
    mrapi_mutex_lock(a->m, &key, MRAPI_TIMEOUT_INFINITE, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    ++*a->counter;
    mrapi_mutex_unlock(a->m, &key, &st);
  }
}

static void *counter_thread(void *p)
{
  other_main(p);
  return NULL;
}

TEST(mutex_excludes_between_threads)
{
  init_node(1);
  mrapi_status_t st;
  long counter = 0;
  counter_arg_t a = {mrapi_mutex_create(5, NULL, &st), &counter, 20000};
  other_t o[3] = {{11, count_under_mutex, &a}, {12, count_under_mutex, &a}, {13, count_under_mutex, &a}};
  pthread_t t[3];
  for (int i = 0; i < 3; i++)
    pthread_create(&t[i], NULL, counter_thread, &o[i]);
  count_under_mutex(&a);
  for (int i = 0; i < 3; i++)
    pthread_join(t[i], NULL);
  CHECK_EQ_U(counter, 4 * 20000);
  mrapi_mutex_delete(a.m, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

/* ------------------------------------------------------------ semaphores */

static void sem_post_later(void *p)
{
  mrapi_status_t st;
  mrapi_sem_hndl_t s = mrapi_sem_get(77, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK_EQ_U(s, *(mrapi_sem_hndl_t *)p);
  mrapi_sem_unlock(s, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
}

TEST(semaphore_statuses)
{
  init_node(1);
  mrapi_status_t st;
  mrapi_sem_create(77, NULL, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKLIMIT);
  mrapi_sem_create(77, NULL, MRAPI_MAX_SHARED_LOCKS + 1, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKLIMIT);
  mrapi_sem_create(77, NULL, 0xffff0000u, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKLIMIT);
  mrapi_sem_hndl_t s = mrapi_sem_create(77, NULL, 2, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_sem_create(77, NULL, 2, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_EXISTS);
  mrapi_sem_get(78, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_ID_INVALID);
  mrapi_sem_unlock(s, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_NOTLOCKED);
  CHECK(mrapi_sem_trylock(s, &st));
  CHECK(mrapi_sem_trylock(s, &st));
  CHECK(!mrapi_sem_trylock(s, &st));
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKED);
  mrapi_sem_lock(s, 20, &st);
  CHECK_MRAPI(st, MRAPI_TIMEOUT);
  mrapi_sem_delete(s, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKED);
  /* Another node posts; we (then) get the unit. */
  on_other_node(2, sem_post_later, &s);
  mrapi_sem_lock(s, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_sem_unlock(s, &st);
  mrapi_sem_unlock(s, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_sem_delete(s, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_sem_delete(s, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_INVALID);
  mrapi_sem_lock(s, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_INVALID);
  fini_node();
}

/* A waiter blocked on a semaphore is woken by a post from another thread. */
typedef struct {
  mrapi_sem_hndl_t s;
  mrapi_status_t st;
} sem_wait_arg_t;

static void sem_wait_forever(void *p)
{
  sem_wait_arg_t *a = p;
  mrapi_sem_lock(a->s, MRAPI_TIMEOUT_INFINITE, &a->st);
}

static void *sem_waiter_thread(void *p)
{
  other_main(p);
  return NULL;
}

TEST(semaphore_wakes_blocked_waiter)
{
  init_node(1);
  mrapi_status_t st;
  sem_wait_arg_t a = {mrapi_sem_create(79, NULL, 1, &st), MRAPI_TIMEOUT};
  CHECK(mrapi_sem_trylock(a.s, &st));
  other_t o = {2, sem_wait_forever, &a};
  pthread_t t;
  pthread_create(&t, NULL, sem_waiter_thread, &o);
  mcx_port_sleep_ns(20000000); /* let it block (not required for correctness) */
  mrapi_sem_unlock(a.s, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  pthread_join(t, NULL);
  CHECK_MRAPI(a.st, MRAPI_SUCCESS);
  mrapi_sem_unlock(a.s, &st); /* the waiter's unit */
  mrapi_sem_delete(a.s, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

/* ------------------------------------------------------------ rw locks */

static void rwl_other_reader(void *p)
{
  mrapi_rwl_hndl_t l = *(mrapi_rwl_hndl_t *)p;
  mrapi_status_t st;
  CHECK(mrapi_rwl_trylock(l, MRAPI_RWL_READER, &st)); /* readers share */
  CHECK(!mrapi_rwl_trylock(l, MRAPI_RWL_WRITER, &st));
  CHECK_MRAPI(st, MRAPI_ERR_RWL_LOCKED);
  mrapi_rwl_unlock(l, MRAPI_RWL_READER, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
}

static void rwl_other_blocked(void *p)
{
  mrapi_rwl_hndl_t l = *(mrapi_rwl_hndl_t *)p;
  mrapi_status_t st;
  mrapi_rwl_lock(l, MRAPI_RWL_READER, 20, &st);
  CHECK_MRAPI(st, MRAPI_TIMEOUT);
  mrapi_rwl_lock(l, MRAPI_RWL_WRITER, 20, &st);
  CHECK_MRAPI(st, MRAPI_TIMEOUT);
  mrapi_rwl_unlock(l, MRAPI_RWL_WRITER, &st); /* not the writer */
  CHECK_MRAPI(st, MRAPI_ERR_RWL_NOTLOCKED);
}

TEST(rwlock_statuses)
{
  init_node(1);
  mrapi_status_t st;
  mrapi_rwl_hndl_t l = mrapi_rwl_create(9, NULL, 0, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rwl_create(9, NULL, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RWL_EXISTS);
  mrapi_rwl_get(10, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RWL_ID_INVALID);
  mrapi_rwl_unlock(l, MRAPI_RWL_READER, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RWL_NOTLOCKED);
  mrapi_rwl_lock(l, (mrapi_rwl_mode_t)7, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_PARAMETER);
  mrapi_rwl_lock(l, MRAPI_RWL_READER, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  on_other_node(2, rwl_other_reader, &l);
  mrapi_rwl_delete(l, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RWL_LOCKED);
  mrapi_rwl_unlock(l, MRAPI_RWL_WRITER, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RWL_NOTLOCKED);
  mrapi_rwl_unlock(l, MRAPI_RWL_READER, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rwl_lock(l, MRAPI_RWL_WRITER, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rwl_lock(l, MRAPI_RWL_WRITER, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RWL_LOCKED);
  on_other_node(2, rwl_other_blocked, &l);
  mrapi_rwl_unlock(l, MRAPI_RWL_WRITER, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  /* Reader limit 1. */
  mrapi_rwl_hndl_t l1 = mrapi_rwl_create(11, NULL, 1, &st);
  CHECK(mrapi_rwl_trylock(l1, MRAPI_RWL_READER, &st));
  CHECK(!mrapi_rwl_trylock(l1, MRAPI_RWL_READER, &st));
  mrapi_rwl_unlock(l1, MRAPI_RWL_READER, &st);
  mrapi_rwl_delete(l1, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rwl_delete(l, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rwl_delete(l, &st);
  CHECK_MRAPI(st, MRAPI_ERR_RWL_INVALID);
  fini_node();
}

/* ------------------------------------------------------------ shared memory */

static void shm_other(void *p)
{
  mrapi_status_t st;
  mrapi_shmem_hndl_t h = mrapi_shmem_get(3, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK_EQ_U(h, *(mrapi_shmem_hndl_t *)p);
  char *mem = mrapi_shmem_attach(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(mem && !strcmp(mem, "hello"));
  strcpy(mem, "world");
  mrapi_shmem_detach(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
}

TEST(shmem_statuses)
{
  init_node(1);
  mrapi_status_t st;
  mrapi_shmem_create(3, 0, NULL, 0, NULL, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_PARAMETER);
  mrapi_shmem_hndl_t h = mrapi_shmem_create(3, 4096, NULL, 0, NULL, 0, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_shmem_create(3, 4096, NULL, 0, NULL, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SHM_EXISTS);
  mrapi_shmem_get(4, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SHM_ID_INVALID);
  mrapi_uint_t size = 0;
  mrapi_shmem_get_attribute(h, MRAPI_SHMEM_SIZE, &size, sizeof size, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK_EQ_U(size, 4096);
  mrapi_shmem_detach(h, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SHM_NOTATTACHED);
  char *mem = mrapi_shmem_attach(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_shmem_attach(h, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SHM_ATTACHED);
  CHECK(mem && mem[0] == 0 && mem[4095] == 0);
  strcpy(mem, "hello");
  on_other_node(2, shm_other, &h);
  CHECK(!strcmp(mem, "world"));
  mrapi_shmem_delete(h, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SHM_ATTCH);
  mrapi_shmem_detach(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(shm_leftovers(dom) == 2);
  mrapi_shmem_delete(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(shm_leftovers(dom) == 1);
  mrapi_shmem_delete(h, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SHM_INVALID);
  /* A segment still existing at the last finalize is removed with it. */
  mrapi_shmem_create(5, 100, NULL, 0, NULL, 0, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
  CHECK(shm_leftovers(dom) == 0);
}

/* ------------------------------------------------------------ atomics */

TEST(atomics)
{
  mrapi_status_t st;
  uint32_t v32 = 5;
  mrapi_atomic_inc(NULL, &v32, NULL, 4, &st);
  CHECK_MRAPI(st, MRAPI_ERR_NODE_NOTINIT);
  init_node(1);
  uint32_t r32 = 0;
  mrapi_atomic_inc(NULL, &v32, &r32, 4, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(v32 == 6 && r32 == 6);
  mrapi_atomic_dec(NULL, &v32, &r32, 4, &st);
  CHECK(v32 == 5 && r32 == 5);
  uint32_t add = 10;
  mrapi_atomic_add(NULL, &v32, &add, &r32, 4, &st);
  CHECK(v32 == 15 && r32 == 5);
  uint64_t v64 = 0xf0, m64 = 0x0f, p64 = 0;
  mrapi_atomic_or(NULL, &v64, &m64, &p64, 8, &st);
  CHECK(v64 == 0xff && p64 == 0xf0);
  m64 = 0x3c;
  mrapi_atomic_and(NULL, &v64, &m64, &p64, 8, &st);
  CHECK(v64 == 0x3c);
  mrapi_atomic_xor(NULL, &v64, &m64, &p64, 8, &st);
  CHECK(v64 == 0 && p64 == 0x3c);
  uint16_t v16 = 7, cmp = 7, xch = 9, prev16 = 0;
  mrapi_atomic_cas(NULL, &v16, &xch, &cmp, &prev16, 2, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(v16 == 9 && prev16 == 7);
  mrapi_atomic_cas(NULL, &v16, &xch, &cmp, &prev16, 2, &st);
  CHECK_MRAPI(st, MRAPI_ERR_ATOM_OP_FAILED);
  CHECK(prev16 == 9);
  uint8_t v8 = 1, x8 = 3, p8 = 0;
  mrapi_atomic_xchg(NULL, &v8, &x8, &p8, 1, &st);
  CHECK(v8 == 3 && p8 == 1);
  int bit = -1;
  mrapi_atomic_set(NULL, &v32, 31, &bit, 4, &st);
  CHECK(bit == 0 && (v32 >> 31) == 1);
  mrapi_atomic_change(NULL, &v32, 31, &bit, 4, &st);
  CHECK(bit == 1 && (v32 >> 31) == 0);
  mrapi_atomic_clear(NULL, &v32, 0, &bit, 4, &st);
  CHECK(bit == 1 && v32 == 14);
  mrapi_atomic_set(NULL, &v32, 32, &bit, 4, &st);
  CHECK_MRAPI(st, MRAPI_ERR_ATOM_INVALID_ARG);
  mrapi_atomic_inc(NULL, (char *)&v64 + 1, NULL, 4, &st);
  CHECK_MRAPI(st, MRAPI_ERR_ATOM_INVALID_ARG);
  mrapi_atomic_inc(NULL, &v32, NULL, 3, &st);
  CHECK_MRAPI(st, MRAPI_ERR_ATOM_INVALID_ARG);
  uintptr_t p = 1, seen = 0;
  mrapi_atomic_cas_ptr(NULL, &p, 2, 1, &seen, &st);
  CHECK(p == 2 && seen == 1);
  mrapi_atomic_xchg_ptr(NULL, &p, 4, &seen, &st);
  CHECK(p == 4 && seen == 2);
  mrapi_atomic_read_ptr(NULL, &p, &seen, &st);
  CHECK(seen == 4);
  uint32_t lock = 0;
  mrapi_atomic_lock(NULL, &lock, NULL, 4, &st);
  CHECK(lock == 1);
  mrapi_atomic_release(NULL, &lock, 4, &st);
  CHECK(lock == 0);
  mrapi_atomic_sync(NULL, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

/* Atomic increments from four nodes add up (and are TSan-clean). */
static uint32_t shared_counter;
static void inc_many(void *p)
{
  mrapi_status_t st;
  for (int i = 0; i < 10000; i++)
    mrapi_atomic_inc(NULL, &shared_counter, NULL, 4, &st);
}

static void *inc_thread(void *p)
{
  other_main(p);
  return NULL;
}

TEST(atomic_increments_from_threads)
{
  other_t o[4] = {{21, inc_many, 0}, {22, inc_many, 0}, {23, inc_many, 0}, {24, inc_many, 0}};
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, inc_thread, &o[i]);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  CHECK_EQ_U(shared_counter, 40000);
}

TEST(display_status)
{
  char buf[MRAPI_MAX_STATUS_SIZE];
  CHECK(mrapi_display_status(MRAPI_ERR_MUTEX_LOCKED, buf, sizeof buf) && !strcmp(buf, "MRAPI_ERR_MUTEX_LOCKED"));
  CHECK(mrapi_display_status(MRAPI_SUCCESS, buf, 4) == NULL);
  CHECK(mrapi_display_status(MRAPI_ERR_MUTEX_OWNER_DIED, buf, sizeof buf) != NULL);
}

int main(void)
{
  dom = test_domain(0);
  RUN(node_lifecycle_statuses);
  RUN(node_id_taken_by_live_node);
  RUN(domain_closed_under_a_node_that_exited_is_joined_anew);
  RUN(mutex_statuses);
  RUN(mutex_recursive_keys_and_order);
  RUN(mutex_excludes_between_threads);
  RUN(semaphore_statuses);
  RUN(semaphore_wakes_blocked_waiter);
  RUN(rwlock_statuses);
  RUN(shmem_statuses);
  RUN(atomics);
  RUN(atomic_increments_from_threads);
  RUN(display_status);
  CHECK(shm_leftovers(dom) == 0);
  mt_fold();
  return mcx_test_report();
}
