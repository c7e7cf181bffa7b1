/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI across processes (fork): remote memory of another process (DUMMY and
 * the DMA engine; where the system refuses or cannot make the copy, the
 * status says which), partitions kept apart by MCX_NAMESPACE, and semaphore
 * units / rwlock holds of a process that dies given back with an owner-died
 * report. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__) && __has_include(<linux/seccomp.h>)
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#define HAVE_SECCOMP 1
#endif

#include "test_mrapi_util.h"

/* Deletes a semaphore / rwlock under either profile's rule: spec deletes
 * free objects, mca-2.0.3 only objects the caller holds. */
static void del_sem(mrapi_sem_hndl_t s)
{
  mrapi_status_t st;
  if (mcx__mr_profile() == MCX__MR_PROFILE_MCA203)
    mrapi_sem_lock(s, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_sem_delete(s, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
}

static void del_rwl(mrapi_rwl_hndl_t l)
{
  mrapi_status_t st;
  if (mcx__mr_profile() == MCX__MR_PROFILE_MCA203)
    mrapi_rwl_lock(l, MRAPI_RWL_WRITER, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_rwl_delete(l, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
}

static void del_mutex(mrapi_mutex_hndl_t m)
{
  mrapi_status_t st;
  mrapi_key_t k;
  if (mcx__mr_profile() == MCX__MR_PROFILE_MCA203)
    mrapi_mutex_lock(m, &k, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_mutex_delete(m, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
}

static void child_exit(void)
{
  _exit(mt_failed_in_case() ? 1 : 0);
}

static char owned[8192];

/* Child exit code: the part was skipped (the reason printed by the parent). */
#define CHILD_SKIPPED 77

static int all_bytes_are(const char *buf, size_t n, char c)
{
  for (size_t i = 0; i < n; i++)
    if (buf[i] != c)
      return 0;
  return 1;
}

/* Every kind of transfer on @p ch (attached, remote memory of another
 * process) reports @p expected and copies nothing: blocking read and write,
 * and as requests, which complete with that status. */
static void check_transfers_say(mrapi_rmem_hndl_t ch, mrapi_status_t expected)
{
  mrapi_status_t st;
  char buf[16];
  memset(buf, 'c', sizeof buf);
  mrapi_rmem_read(ch, 0, buf, 0, 8, 1, 8, 8, &st);
  CHECK_MRAPI(st, expected);
  CHECK(all_bytes_are(buf, sizeof buf, 'c'));
  mrapi_rmem_write(ch, 0, buf, 0, 1, 5, 100, 1, &st);
  CHECK_MRAPI(st, expected);
  for (int write = 0; write < 2; write++) {
    mrapi_request_t rq;
    size_t sz = 99;
    if (write)
      mrapi_rmem_write_i(ch, 1000, buf, 0, 3, 1, 3, 3, &rq, &st);
    else
      mrapi_rmem_read_i(ch, 1000, buf, 0, 3, 1, 3, 3, &rq, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    CHECK(mrapi_wait(&rq, &sz, MRAPI_TIMEOUT_INFINITE, &st));
    CHECK_MRAPI(st, expected);
    CHECK_EQ_U(sz, 0);
  }
  CHECK(all_bytes_are(buf, sizeof buf, 'c'));
}

static void rmem_across(mrapi_rmem_atype_t t, int id)
{
  mrapi_status_t st;
  init_node(1);
  memset(owned, 'p', sizeof owned);
  mrapi_rmem_hndl_t h = mrapi_rmem_create(id, owned, t, NULL, sizeof owned, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_sem_hndl_t done = mrapi_sem_create(id, NULL, 1, &st);
  mrapi_sem_lock(done, MRAPI_TIMEOUT_INFINITE, &st); /* the child unlocks it when it has written */
  pid_t kid = fork();
  if (kid == 0) {
    init_node(2);
    mrapi_rmem_hndl_t ch = mrapi_rmem_get(id, t, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    mrapi_rmem_attach(ch, t, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    char got[16] = {0};
    mrapi_rmem_read(ch, 4000, got, 0, 8, 1, 8, 8, &st);
    int unsupported = rmem_cross_unsupported(st);
    if (unsupported) {
      check_transfers_say(ch, MRAPI_ERR_NOT_SUPPORTED);
    } else {
      CHECK_MRAPI(st, MRAPI_SUCCESS);
      CHECK(memcmp(got, "pppppppp", 8) == 0);
      /* Scatter "child" into every 100th byte from 0, blocking and as requests. */
      mrapi_rmem_write(ch, 0, "child", 0, 1, 5, 100, 1, &st);
      CHECK_MRAPI(st, MRAPI_SUCCESS);
      mrapi_request_t rq[4];
      for (int i = 0; i < 4; i++) {
        mrapi_rmem_write_i(ch, 1000 + 1000 * (unsigned)i, "req", 0, 3, 1, 3, 3, &rq[i], &st);
        CHECK_MRAPI(st, MRAPI_SUCCESS);
      }
      size_t sz;
      for (int i = 0; i < 4; i++) {
        CHECK(mrapi_wait(&rq[i], &sz, MRAPI_TIMEOUT_INFINITE, &st));
        CHECK_MRAPI(st, MRAPI_SUCCESS);
        CHECK_EQ_U(sz, 3);
      }
    }
    mrapi_rmem_detach(ch, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    mrapi_sem_unlock(mrapi_sem_get(id, &st), &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    fini_node();
    _exit(mt_failed_in_case() ? 1 : unsupported ? CHILD_SKIPPED : 0);
  }
  mrapi_sem_lock(done, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  int rc = wait_child(kid);
  if (rc == CHILD_SKIPPED) {
    printf("  (copies from another process not supported under %s: it does not emulate process_vm_readv/writev; "
           "checked that every transfer reports MRAPI_ERR_NOT_SUPPORTED)\n",
           test_emulator());
    CHECK(all_bytes_are(owned, sizeof owned, 'p'));
  } else {
    CHECK(owned[0] == 'c' && owned[100] == 'h' && owned[400] == 'd' && owned[1] == 'p');
    for (int i = 0; i < 4; i++)
      CHECK(memcmp(owned + 1000 + 1000 * i, "req", 3) == 0);
    CHECK_EQ_U(rc, 0);
  }
  mrapi_sem_unlock(done, &st);
  del_sem(done);
  mrapi_rmem_delete(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

TEST(remote_memory_of_another_process_dummy) { rmem_across(MRAPI_RMEM_DUMMY, 31); }
TEST(remote_memory_of_another_process_dma) { rmem_across(MRAPI_RMEM_DMA, 32); }

#ifdef HAVE_SECCOMP
/* From now on process_vm_readv/writev fail with @p err in this process (a
 * seccomp filter: threads started later, the DMA engine's, inherit it).
 * Returns 0 when the filter is in place. */
static int deny_cross_copy(int err)
{
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
  };
  struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return -1;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0 ? 0 : -1;
}
#endif

/* A child whose cross-process copies fail with @p err (ENOSYS: the system has
 * none, EPERM: refused) gets @p expected from every transfer, never a hang,
 * and the creator's buffer is untouched. Natively through a seccomp filter. */
static void rmem_denied(mrapi_rmem_atype_t t, int id, int err, mrapi_status_t expected)
{
  mrapi_status_t st;
  init_node(1);
  memset(owned, 'p', sizeof owned);
  mrapi_rmem_hndl_t h = mrapi_rmem_create(id, owned, t, NULL, sizeof owned, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fflush(stdout);
  pid_t kid = fork();
  if (kid == 0) {
#ifdef HAVE_SECCOMP
    if (deny_cross_copy(err) != 0)
      _exit(CHILD_SKIPPED);
#else
    (void)err;
    _exit(CHILD_SKIPPED);
#endif
    init_node(2);
    mrapi_rmem_hndl_t ch = mrapi_rmem_get(id, t, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    mrapi_rmem_attach(ch, t, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    check_transfers_say(ch, expected);
    mrapi_rmem_detach(ch, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    fini_node();
    child_exit();
  }
  int rc = wait_child(kid);
  if (rc == CHILD_SKIPPED)
    printf("  (no seccomp filter could be installed here%s%s: the refused copy is not checked)\n",
           test_emulator() ? ", under " : "", test_emulator() ? test_emulator() : "");
  else
    CHECK_EQ_U(rc, 0);
  CHECK(all_bytes_are(owned, sizeof owned, 'p'));
  mrapi_rmem_delete(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

TEST(remote_memory_copy_not_supported_dummy) { rmem_denied(MRAPI_RMEM_DUMMY, 33, ENOSYS, MRAPI_ERR_NOT_SUPPORTED); }
TEST(remote_memory_copy_not_supported_dma) { rmem_denied(MRAPI_RMEM_DMA, 34, ENOSYS, MRAPI_ERR_NOT_SUPPORTED); }
TEST(remote_memory_copy_refused) { rmem_denied(MRAPI_RMEM_DMA, 35, EPERM, MRAPI_ERR_RMEM_CONFLICT); }

/* Same domain id, other namespace: a separate partition. */
TEST(namespaces_keep_runs_apart)
{
  mrapi_status_t st;
  init_node(1);
  mrapi_mutex_hndl_t m = mrapi_mutex_create(40, NULL, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  pid_t kid = fork();
  if (kid == 0) {
    const char *ns = getenv("MCX_NAMESPACE");
    char other[128];
    snprintf(other, sizeof other, "other_%s", ns ? ns : "x");
    setenv("MCX_NAMESPACE", other, 1);
    init_node(1); /* the same node id is free in the other namespace */
    mrapi_mutex_create(40, NULL, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    fini_node();
    CHECK_EQ_U(shm_leftovers(dom), 0); /* counted in the other namespace */
    if (ns)
      setenv("MCX_NAMESPACE", ns, 1);
    else
      unsetenv("MCX_NAMESPACE");
    init_node(2); /* the parent's namespace: the mutex is there */
    mrapi_mutex_create(40, NULL, &st);
    CHECK_MRAPI(st, MRAPI_ERR_MUTEX_EXISTS);
    fini_node();
    child_exit();
  }
  CHECK_EQ_U(wait_child(kid), 0);
  del_mutex(m);
  fini_node();
}

TEST(semaphore_units_of_a_dead_process_come_back)
{
  mrapi_status_t st;
  init_node(1);
  mrapi_sem_hndl_t s = mrapi_sem_create(50, NULL, 3, &st);
  mrapi_sem_hndl_t ready = mrapi_sem_create(51, NULL, 1, &st);
  mrapi_sem_lock(ready, MRAPI_TIMEOUT_INFINITE, &st);
  pid_t kid = fork();
  if (kid == 0) {
    init_node(2);
    mrapi_sem_hndl_t cs = mrapi_sem_get(50, &st);
    mrapi_sem_lock(cs, MRAPI_TIMEOUT_INFINITE, &st);
    mrapi_sem_lock(cs, MRAPI_TIMEOUT_INFINITE, &st);
    mrapi_sem_unlock(mrapi_sem_get(51, &st), &st);
    _exit(0); /* dies holding two units, without finalize */
  }
  mrapi_sem_lock(ready, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_EQ_U(wait_child(kid), 0);
  /* One unit is free; the next lock needs the dead child's. */
  mrapi_sem_lock(s, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_sem_lock(s, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_OWNER_DIED); /* granted, reported once */
  CHECK(mrapi_sem_trylock(s, &st));
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  CHECK(!mrapi_sem_trylock(s, &st)); /* three units, three held: no more */
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKED);
  for (int i = 0; i < 3; i++) {
    mrapi_sem_unlock(s, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
  }
  mrapi_sem_unlock(s, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_NOTLOCKED);
  mrapi_sem_unlock(ready, &st);
  del_sem(ready);
  del_sem(s);
  fini_node();
}

static void rwl_dead_holder(int child_writer)
{
  mrapi_status_t st;
  init_node(1);
  mrapi_rwl_hndl_t l = mrapi_rwl_create(60, NULL, 0, &st);
  mrapi_sem_hndl_t ready = mrapi_sem_create(61, NULL, 1, &st);
  mrapi_sem_lock(ready, MRAPI_TIMEOUT_INFINITE, &st);
  pid_t kid = fork();
  if (kid == 0) {
    init_node(2);
    mrapi_rwl_lock(mrapi_rwl_get(60, &st), child_writer ? MRAPI_RWL_WRITER : MRAPI_RWL_READER,
                   MRAPI_TIMEOUT_INFINITE, &st);
    mrapi_sem_unlock(mrapi_sem_get(61, &st), &st);
    _exit(0);
  }
  mrapi_sem_lock(ready, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_EQ_U(wait_child(kid), 0);
  /* Immediate, then waiting: both find the dead holder. */
  CHECK(mrapi_rwl_trylock(l, MRAPI_RWL_WRITER, &st));
  CHECK_MRAPI(st, MRAPI_ERR_RWL_OWNER_DIED);
  mrapi_rwl_unlock(l, MRAPI_RWL_WRITER, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rwl_lock(l, MRAPI_RWL_READER, MRAPI_TIMEOUT_INFINITE, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  mrapi_rwl_unlock(l, MRAPI_RWL_READER, &st);
  mrapi_sem_unlock(ready, &st);
  del_sem(ready);
  del_rwl(l);
  fini_node();
}

TEST(rwlock_writer_of_a_dead_process_is_released) { rwl_dead_holder(1); }
TEST(rwlock_reader_of_a_dead_process_is_released) { rwl_dead_holder(0); }

/* A waiter blocked on a semaphore whose holder dies gets the unit. */
TEST(blocked_waiter_recovers_units_of_a_dead_holder)
{
  mrapi_status_t st;
  init_node(1);
  mrapi_sem_hndl_t s = mrapi_sem_create(70, NULL, 1, &st);
  int held[2];
  CHECK(pipe(held) == 0);
  pid_t kid = fork();
  if (kid == 0) {
    init_node(2);
    mrapi_sem_lock(mrapi_sem_get(70, &st), MRAPI_TIMEOUT_INFINITE, &st);
    char one = 1;
    if (write(held[1], &one, 1) != 1) /* the parent locks only once we hold the unit */
      _exit(3);
    mcx_port_sleep_ns(50000000); /* the parent blocks meanwhile */
    _exit(0);
  }
  close(held[1]);
  char got = 0;
  CHECK(read(held[0], &got, 1) == 1 && got == 1);
  close(held[0]);
  mrapi_sem_lock(s, MRAPI_TIMEOUT_INFINITE, &st); /* wakes by the probe after the child's death */
  CHECK(st == MRAPI_ERR_SEM_OWNER_DIED || st == MRAPI_SUCCESS);
  CHECK_EQ_U(wait_child(kid), 0);
  mrapi_sem_unlock(s, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  del_sem(s);
  fini_node();
}

/* Delete rules with the holder in another process: a node that does not hold
 * an object cannot delete it under either profile; the holder can (spec:
 * after releasing it; mca-2.0.3: while holding it). */
TEST(delete_rules_across_processes)
{
  mrapi_status_t st;
  mrapi_key_t k;
  init_node(1);
  mrapi_mutex_hndl_t m = mrapi_mutex_create(80, NULL, &st);
  mrapi_sem_hndl_t s = mrapi_sem_create(81, NULL, 2, &st);
  mrapi_sem_hndl_t held = mrapi_sem_create(82, NULL, 1, &st);
  mrapi_sem_hndl_t go = mrapi_sem_create(83, NULL, 1, &st);
  mrapi_sem_lock(held, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_sem_lock(go, MRAPI_TIMEOUT_INFINITE, &st);
  pid_t kid = fork();
  if (kid == 0) {
    init_node(2);
    mrapi_mutex_hndl_t cm = mrapi_mutex_get(80, &st);
    mrapi_sem_hndl_t cs = mrapi_sem_get(81, &st);
    mrapi_mutex_lock(cm, &k, MRAPI_TIMEOUT_INFINITE, &st);
    mrapi_sem_lock(cs, MRAPI_TIMEOUT_INFINITE, &st);
    mrapi_sem_unlock(mrapi_sem_get(82, &st), &st); /* "I hold them" */
    mrapi_sem_lock(mrapi_sem_get(83, &st), MRAPI_TIMEOUT_INFINITE, &st); /* wait for the parent's tries */
    if (mcx__mr_profile() == MCX__MR_PROFILE_SPEC) {
      mrapi_mutex_unlock(cm, &k, &st);
      mrapi_sem_unlock(cs, &st);
    }
    mrapi_mutex_delete(cm, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    mrapi_sem_delete(cs, &st);
    CHECK_MRAPI(st, MRAPI_SUCCESS);
    fini_node();
    child_exit();
  }
  mrapi_sem_lock(held, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_mutex_delete(m, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_LOCKED);
  mrapi_sem_delete(s, &st);
  CHECK_MRAPI(st, MRAPI_ERR_SEM_LOCKED);
  mrapi_sem_unlock(go, &st);
  CHECK_EQ_U(wait_child(kid), 0);
  mrapi_mutex_lock(m, &k, 0, &st);
  CHECK_MRAPI(st, MRAPI_ERR_MUTEX_INVALID); /* deleted by the child (no ERROR_EXT) */
  mrapi_sem_unlock(held, &st);
  del_sem(held);
  mrapi_sem_unlock(go, &st);
  del_sem(go);
  fini_node();
}

/* A child forked while the parent's DMA requests are in flight starts with
 * an empty request table (no engine of the parent's runs in it). */
TEST(fork_with_dma_requests_in_flight)
{
  mrapi_status_t st;
  init_node(1);
  mrapi_rmem_hndl_t h = mrapi_rmem_create(90, owned, MRAPI_RMEM_DMA, NULL, sizeof owned, &st);
  mrapi_rmem_attach(h, MRAPI_RMEM_DMA, &st);
  static char src[8192];
  mrapi_request_t rq[16];
  for (int i = 0; i < 16; i++)
    mrapi_rmem_write_i(h, 0, src, 0, sizeof src, 1, sizeof src, sizeof src, &rq[i], &st);
  pid_t kid = fork();
  if (kid == 0) {
    size_t sz;
    mrapi_test(&rq[0], &sz, &st); /* the parent's request is not the child's */
    CHECK_MRAPI(st, MRAPI_ERR_REQUEST_INVALID);
    init_node(2);
    fini_node(); /* waits for the child's own requests only: none */
    child_exit();
  }
  CHECK_EQ_U(wait_child(kid), 0);
  size_t sz;
  for (int i = 0; i < 16; i++) {
    CHECK(mrapi_wait(&rq[i], &sz, MRAPI_TIMEOUT_INFINITE, &st));
    CHECK_MRAPI(st, MRAPI_SUCCESS);
  }
  mrapi_rmem_detach(h, &st);
  mrapi_rmem_delete(h, &st);
  CHECK_MRAPI(st, MRAPI_SUCCESS);
  fini_node();
}

int main(void)
{
  dom = test_domain(2);
  RUN(remote_memory_of_another_process_dummy);
  RUN(remote_memory_of_another_process_dma);
  RUN(remote_memory_copy_not_supported_dummy);
  RUN(remote_memory_copy_not_supported_dma);
  RUN(remote_memory_copy_refused);
  RUN(namespaces_keep_runs_apart);
  RUN(semaphore_units_of_a_dead_process_come_back);
  RUN(rwlock_writer_of_a_dead_process_is_released);
  RUN(rwlock_reader_of_a_dead_process_is_released);
  RUN(blocked_waiter_recovers_units_of_a_dead_holder);
  RUN(delete_rules_across_processes);
  RUN(fork_with_dma_requests_in_flight);
  CHECK_EQ_U(shm_leftovers(dom), 0);
  mt_fold();
  return mcx_test_report();
}
