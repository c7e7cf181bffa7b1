/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Windows port (ports/win32), as docs/porting.md asks of a port: named
 * mappings (exclusive create, exact size, unlink hides the name, the user-only
 * security descriptor and the refusal of one open to others), waits on words
 * of a mapping seen through two views (the shared-wait path that processes
 * take), thread and process liveness, affinity, the clock; and what Windows
 * lacks reports "not supported" instead of crashing: PI semaphores, the POSIX
 * message-queue transport, perf_event counters.
 */
#include <pthread.h>
#include <windows.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_sem.h"
#include "mcx_test.h"
#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"

static char name_buf[MCX_PORT_SHM_NAME_MAX];
static const char *shm_name(const char *tag)
{
  snprintf(name_buf, sizeof name_buf, "/mcx-wtest-%lu-%s", (unsigned long)GetCurrentProcessId(), tag);
  return name_buf;
}

TEST(mapping_create_is_exclusive_and_open_sees_the_exact_size)
{
  const char *n = shm_name("a");
  mcx_port_shm_t a, b;
  CHECK_EQ_U(mcx_port_shm_create(n, 1000, &a), MCX_OK);
  CHECK_EQ_U(mcx_port_shm_create(n, 1000, &b), MCX_EEXIST);
  CHECK_EQ_U(mcx_port_shm_open(n, 1001, &b), MCX_EAGAIN); /* smaller than asked */
  CHECK_EQ_U(mcx_port_shm_open(n, 8, &b), MCX_OK);
  CHECK_EQ_U(b.size, 1000); /* not rounded to pages */
  char *p = mcx_port_shm_map(&a, 1000), *q = mcx_port_shm_map(&b, 1000);
  CHECK(p && q && p != q);
  if (!p || !q)
    return;
  CHECK(((uintptr_t)p & 4095) == 0); /* page-aligned for the caller */
  p[999] = 42;
  CHECK(q[999] == 42); /* one object, two views */
  mcx_port_shm_close(&a);
  mcx_port_shm_close(&b);
  /* Unlinked: opens fail at once, as after shm_unlink, though views live on. */
  CHECK_EQ_U(mcx_port_shm_unlink(n), MCX_OK);
  CHECK_EQ_U(mcx_port_shm_open(n, 8, &b), MCX_ENOENT);
  CHECK_EQ_U(mcx_port_shm_unlink(n), MCX_ENOENT);
  CHECK(q[999] == 42);
  /* The name is free again at once, as after shm_unlink, though views of
   * the unlinked object live on: a create makes a new, zero-filled object. */
  mcx_port_shm_t c;
  CHECK_EQ_U(mcx_port_shm_create(n, 2000, &c), MCX_OK);
  CHECK_EQ_U(mcx_port_shm_create(n, 2000, &b), MCX_EEXIST);
  char *r = mcx_port_shm_map(&c, 2000);
  CHECK(r && r[999] == 0 && q[999] == 42);
  CHECK_EQ_U(mcx_port_shm_open(n, 8, &b), MCX_OK);
  CHECK_EQ_U(b.size, 2000);
  mcx_port_shm_close(&b);
  CHECK_EQ_U(mcx_port_shm_unlink(n), MCX_OK);
  CHECK_EQ_U(mcx_port_shm_open(n, 8, &b), MCX_ENOENT);
  mcx_port_shm_close(&c);
  if (r)
    mcx_port_shm_unmap(r, 2000);
  mcx_port_shm_unmap(p, 1000);
  mcx_port_shm_unmap(q, 1000);
  /* An object outlives its handles and views until it is unlinked, as a
   * POSIX one does (its creator keeps it while it runs). */
  CHECK_EQ_U(mcx_port_shm_create(n, 64, &a), MCX_OK);
  mcx_port_shm_close(&a);
  CHECK_EQ_U(mcx_port_shm_open(n, 8, &b), MCX_OK);
  CHECK_EQ_U(b.size, 64);
  mcx_port_shm_close(&b);
  CHECK_EQ_U(mcx_port_shm_unlink(n), MCX_OK);
  CHECK_EQ_U(mcx_port_shm_open(n, 8, &b), MCX_ENOENT);
}

TEST(mapping_names_and_modes_are_checked)
{
  mcx_port_shm_t a;
  CHECK_EQ_U(mcx_port_shm_create("no-slash", 64, &a), MCX_EINVAL);
  CHECK_EQ_U(mcx_port_shm_create("/a/b", 64, &a), MCX_EINVAL);
  CHECK_EQ_U(mcx_port_shm_create("/a\\b", 64, &a), MCX_EINVAL);
  CHECK_EQ_U(mcx_port_shm_create(shm_name("z"), 0, &a), MCX_EINVAL);
  CHECK_EQ_U(mcx_port_shm_open(shm_name("never"), 8, &a), MCX_ENOENT);
  /* Opened to everyone for writing (0666): an open that allows 0600 only refuses it. */
  const char *n = shm_name("m");
  mcx_port_shm_t w, o;
  CHECK_EQ_U(mcx_port_shm_create_mode(n, 64, 0666, &w), MCX_OK);
  CHECK_EQ_U(mcx_port_shm_open(n, 8, &o), MCX_EPERM);
  CHECK_EQ_U(mcx_port_shm_open_mode(n, 8, 0666, &o), MCX_OK);
  mcx_port_shm_close(&o);
  mcx_port_shm_close(&w);
  /* The user-only one opens with 0600. */
  n = shm_name("u");
  CHECK_EQ_U(mcx_port_shm_create(n, 64, &w), MCX_OK);
  CHECK_EQ_U(mcx_port_shm_open(n, 8, &o), MCX_OK);
  mcx_port_shm_close(&o);
  mcx_port_shm_close(&w);
}

/* ---- a shared wait through one view, the wake through another */
typedef struct {
  mcx_atomic_u32 *word;
  mcx_atomic_u32 woke;
} waiter_t;

static void *wait_word(void *arg)
{
  waiter_t *w = arg;
  uint64_t deadline = mcx_port_now_ns() + 20ull * 1000000000u;
  while (mcx_load_acquire(w->word) == 0 && mcx_port_now_ns() < deadline) /* A: pairs with R */
    mcx_port_futex_wait(w->word, 0, deadline, 1);
  mcx_store_release(&w->woke, mcx_load_acquire(w->word)); /* R2: pairs with A2 */
  return NULL;
}

TEST(shared_wait_is_woken_through_another_view)
{
  const char *n = shm_name("f");
  mcx_port_shm_t a, b;
  CHECK_EQ_U(mcx_port_shm_create(n, 4096, &a), MCX_OK);
  CHECK_EQ_U(mcx_port_shm_open(n, 4096, &b), MCX_OK);
  char *p = mcx_port_shm_map(&a, 4096), *q = mcx_port_shm_map(&b, 4096);
  CHECK(p && q);
  if (!p || !q)
    return;
  mcx_port_shm_close(&a);
  mcx_port_shm_close(&b);
  waiter_t w = {(mcx_atomic_u32 *)(void *)(p + 128), 0};
  pthread_t t;
  pthread_create(&t, NULL, wait_word, &w);
  mcx_port_sleep_ns(50 * 1000000ull); /* most likely asleep by now; correct either way */
  mcx_atomic_u32 *other = (mcx_atomic_u32 *)(void *)(q + 128);
  mcx_store_release(other, 7u); /* R: pairs with A */
  mcx_port_futex_wake(other, 1, 1);
  pthread_join(t, NULL);
  CHECK_EQ_U(mcx_load_acquire(&w.woke), 7); /* A2: pairs with R2 */
  /* A timed shared wait on an unchanged word times out. */
  uint64_t d = mcx_port_now_ns() + 20 * 1000000ull;
  int r;
  while ((r = mcx_port_futex_wait(other, 7u, d, 1)) == MCX_OK && mcx_port_now_ns() < d) {
  }
  CHECK(r == MCX_ETIMEDOUT || mcx_port_now_ns() >= d);
  mcx_port_shm_unlink(n);
  mcx_port_shm_unmap(p, 4096);
  mcx_port_shm_unmap(q, 4096);
}

TEST(private_wait_and_wake)
{
  static mcx_atomic_u32 word;
  waiter_t w = {&word, 0};
  pthread_t t;
  pthread_create(&t, NULL, wait_word, &w);
  mcx_port_sleep_ns(20 * 1000000ull);
  mcx_store_release(&word, 3u);
  mcx_port_futex_wake(&word, 1, 0);
  pthread_join(t, NULL);
  CHECK_EQ_U(mcx_load_acquire(&w.woke), 3);
  CHECK_EQ_U(mcx_port_futex_wait(&word, 99u, MCX_NO_DEADLINE, 0), MCX_OK); /* value differs */
  uint64_t d = mcx_port_now_ns() + 5 * 1000000ull;
  int r;
  while ((r = mcx_port_futex_wait(&word, 3u, d, 0)) == MCX_OK && mcx_port_now_ns() < d) {
  }
  CHECK(r == MCX_ETIMEDOUT || mcx_port_now_ns() >= d);
}

static DWORD WINAPI quick(LPVOID arg)
{
  (void)arg;
  return 0;
}

TEST(thread_and_process_liveness)
{
  CHECK(mcx_port_tid_alive(mcx_port_tid()));
  CHECK(mcx_port_pid_alive(mcx_port_pid()));
  CHECK(!mcx_port_tid_alive(0));
  DWORD tid;
  HANDLE h = CreateThread(NULL, 0, quick, NULL, 0, &tid);
  CHECK(h != NULL);
  WaitForSingleObject(h, INFINITE);
  /* Exited; the handle we hold keeps the id from being reused meanwhile. */
  CHECK(!mcx_port_tid_alive(tid));
  CloseHandle(h);
  /* A process killed with TerminateProcess is dead at once. */
  STARTUPINFOA si = {.cb = sizeof si};
  PROCESS_INFORMATION pi;
  char cmd[MAX_PATH + 16];
  char exe[MAX_PATH];
  GetModuleFileNameA(NULL, exe, sizeof exe);
  snprintf(cmd, sizeof cmd, "\"%s\" sleep", exe);
  CHECK(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
  CHECK(mcx_port_pid_alive(pi.dwProcessId));
  CHECK(mcx_port_tid_alive(pi.dwProcessId));
  TerminateProcess(pi.hProcess, 9);
  WaitForSingleObject(pi.hProcess, INFINITE);
  CHECK(!mcx_port_pid_alive(pi.dwProcessId));
  CHECK(!mcx_port_tid_alive(pi.dwThreadId));
  CloseHandle(pi.hThread);
  CloseHandle(pi.hProcess);
}

TEST(affinity_clock_and_ids)
{
  int n = mcx_port_ncpus();
  CHECK(n >= 1);
  CHECK_EQ_U(mcx_port_pin_self(0), MCX_OK);
  CHECK_EQ_U(mcx_port_pin_self(-1), MCX_OK);
  CHECK_EQ_U(mcx_port_pin_self(n), MCX_EINVAL);
  uint64_t a = mcx_port_now_ns();
  mcx_port_sleep_ns(2 * 1000000ull);
  uint64_t b = mcx_port_now_ns();
  CHECK(b >= a + 2 * 1000000ull); /* slept at least as asked (never less) */
  CHECK(mcx_port_tid() == GetCurrentThreadId());
  CHECK(mcx_port_pid() == GetCurrentProcessId());
  CHECK(mcx_port_uid() != 0);
}

TEST(pi_semaphores_report_not_supported)
{
  mcx_pisem_t s;
  CHECK_EQ_U(mcx_pisem_init(&s, 0), MCX_SEM_NOT_SUPPORTED);
  CHECK_EQ_U(mcx_pisem_init(&s, MCX_SEM_SHARED), MCX_SEM_NOT_SUPPORTED);
  /* Never initialized: every call on it says INVALID, none crashes. */
  CHECK_EQ_U(mcx_pisem_lock(&s, 0), MCX_SEM_INVALID);
  /* The semaphores without inheritance work. */
  mcx_csem_t c;
  CHECK_EQ_U(mcx_csem_init(&c, 1, 2, 0), MCX_SEM_OK);
  CHECK_EQ_U(mcx_csem_acquire(&c, 0), MCX_SEM_OK);
  CHECK_EQ_U(mcx_csem_acquire(&c, 0), MCX_SEM_TIMEOUT);
  CHECK_EQ_U(mcx_csem_release(&c), MCX_SEM_OK);
  mcx_event_t e;
  CHECK_EQ_U(mcx_event_init(&e, 0), MCX_SEM_OK);
  CHECK_EQ_U(mcx_event_post(&e), MCX_SEM_OK);
  CHECK_EQ_U(mcx_event_wait(&e, 1000), MCX_SEM_OK);
  CHECK_EQ_U(mcx_event_wait(&e, 0), MCX_SEM_TIMEOUT);
}

TEST(message_queue_transport_reports_not_supported)
{
  mcapi_info_t info;
  mcapi_status_t st;
  setenv("MCX_TRANSPORT", "pmq", 1);
  mcapi_initialize(40, 1, NULL, NULL, &info, &st);
  unsetenv("MCX_TRANSPORT");
  CHECK(st != MCAPI_SUCCESS);
  char b[64];
  printf("   MCX_TRANSPORT=pmq: %s\n", mcapi_display_status(st, b, sizeof b) ? b : "?");
  /* The shared-memory transport is unaffected. */
  mcapi_initialize(40, 1, NULL, NULL, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

TEST(perf_event_counters_report_not_supported)
{
  CHECK_EQ_U(mcx_hpc_probe("cycles", 0, -1), MCX_HPC_NOT_SUPPORTED);
  CHECK_EQ_U(mcx_hpc_probe("instructions", 0, -1), MCX_HPC_NOT_SUPPORTED);
}

int main(int argc, char **argv)
{
  if (argc > 1 && !strcmp(argv[1], "sleep")) { /* the child of thread_and_process_liveness */
    Sleep(30000);
    return 0;
  }
  RUN(mapping_create_is_exclusive_and_open_sees_the_exact_size);
  RUN(mapping_names_and_modes_are_checked);
  RUN(shared_wait_is_woken_through_another_view);
  RUN(private_wait_and_wake);
  RUN(thread_and_process_liveness);
  RUN(affinity_clock_and_ids);
  RUN(pi_semaphores_report_not_supported);
  RUN(message_queue_transport_reports_not_supported);
  RUN(perf_event_counters_report_not_supported);
  return mcx_test_report();
}
