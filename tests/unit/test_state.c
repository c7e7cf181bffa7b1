/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * State channels (mcx_state_*): create/open/close, write/read with versions,
 * truncation, wait_newer, every misuse status, both locking modes, and a
 * reader in another process.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

static mcapi_domain_t dom = 1;
static mcx_locking_t lk = MCX_LOCKING_LOCKFREE;

static mcapi_status_t init_node(mcapi_node_t node)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.locking = lk;
  mcapi_initialize(dom, node, NULL, &p, &info, &st);
  return st;
}

TEST(write_read_versions_and_errors)
{
  mcapi_status_t st;
  CHECK_STATUS(init_node(1), MCAPI_SUCCESS);
  mcx_state_t w = mcx_state_create(7, 64, 3, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcx_state_create(7, 64, 3, &st);
  CHECK_STATUS(st, MCAPI_ERR_ENDP_EXISTS);
  mcx_state_create(8, 0, 3, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_state_create(8, MCX_STATE_MAX_PAYLOAD + 1, 3, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_state_create(8, 64, 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  char buf[128];
  mca_uint64_t v = 99;
  size_t n = mcx_state_read(w, buf, sizeof buf, &v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 0 && v == 0); /* nothing written yet */
  for (int i = 1; i <= 10; i++) {
    char val[32];
    int len = snprintf(val, sizeof val, "value %d", i);
    mcx_state_write(w, val, (size_t)len + 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  n = mcx_state_read(w, buf, sizeof buf, &v, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(v, 10);
  CHECK(n == 9 && !strcmp(buf, "value 10"));
  /* Truncation: first bytes, full size, status. */
  memset(buf, 0, sizeof buf);
  n = mcx_state_read(w, buf, 3, &v, &st);
  CHECK_STATUS(st, MCAPI_ERR_MSG_TRUNCATED);
  CHECK(n == 9 && !memcmp(buf, "val", 3) && buf[3] == 0);
  /* Misuse. */
  char big[65] = {0};
  mcx_state_write(w, big, sizeof big, &st);
  CHECK_STATUS(st, MCAPI_ERR_MSG_SIZE);
  mcx_state_write(w, NULL, 4, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_state_read(w, NULL, 4, &v, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
  mcx_state_read(0x7777, buf, 4, &v, &st);
  CHECK_STATUS(st, MCAPI_ERR_ENDP_INVALID);
  CHECK_EQ_U(mcx_state_wait_newer(w, 10, 5, &st), 10);
  CHECK_STATUS(st, MCAPI_TIMEOUT);
  CHECK_EQ_U(mcx_state_wait_newer(w, 3, 0, &st), 10);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* Open by id, then the writer closes: the handle goes stale. */
  mcx_state_t r = mcx_state_open(dom, 1, 7, 0, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(r == w);
  mcx_state_open(dom, 1, 8, 0, &st);
  CHECK_STATUS(st, MCAPI_TIMEOUT);
  mcx_state_open(dom + 100, 1, 7, 0, &st);
  CHECK_STATUS(st, MCAPI_ERR_DOMAIN_INVALID);
  mcx_state_close(w, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcx_state_read(r, buf, sizeof buf, &v, &st);
  CHECK_STATUS(st, MCAPI_ERR_ENDP_INVALID);
  mcx_state_close(w, &st);
  CHECK_STATUS(st, MCAPI_ERR_ENDP_INVALID);
  mcapi_finalize(&st);
  mcx_state_write(w, "x", 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_NODE_NOTINIT);
}

struct reader_arg {
  mcx_state_t h;
  mca_uint64_t seen;
  mcapi_status_t st;
  int is_writer_check;
  atomic_long waiting_tid; /* set just before its wait for a newer version */
};

static void *write_from_reader(void *arg)
{
  struct reader_arg *a = arg;
  mcapi_status_t st;
  init_node(2);
  mcx_state_t h = mcx_state_open(dom, 1, 9, MCX_TEST_WAIT_MS, &st);
  mcx_state_write(h, "no", 2, &st);
  a->st = st; /* only the creating node writes */
  /* Wait for a newer version than 1 from the writer. */
  atomic_store(&a->waiting_tid, mcx_test_tid());
  a->seen = mcx_state_wait_newer(h, 1, MCAPI_TIMEOUT_INFINITE, &st);
  a->is_writer_check = st == MCAPI_SUCCESS;
  mcapi_finalize(&st);
  return NULL;
}

TEST(other_nodes_read_and_wait_but_do_not_write)
{
  mcapi_status_t st;
  CHECK_STATUS(init_node(1), MCAPI_SUCCESS);
  mcx_state_t w = mcx_state_create(9, 16, 2, &st);
  mcx_state_write(w, "v1", 3, &st);
  struct reader_arg a = {0};
  pthread_t t;
  pthread_create(&t, NULL, write_from_reader, &a);
  /* Event: the reader is asleep waiting for a newer version (the test holds either way). */
  MCX_TEST_AWAIT(atomic_load(&a.waiting_tid) && mcx_test_thread_asleep(atomic_load(&a.waiting_tid)));
  mcx_state_write(w, "v2", 3, &st);
  pthread_join(t, NULL);
  CHECK_STATUS(a.st, MCAPI_ERR_ENDP_REMOTE);
  CHECK(a.is_writer_check);
  CHECK(a.seen >= 2);
  mcapi_finalize(&st);
}

TEST(reader_in_another_process)
{
  mcapi_status_t st;
  CHECK_STATUS(init_node(1), MCAPI_SUCCESS);
  mcx_state_t w = mcx_state_create(11, 32, 4, &st);
  pid_t pid = fork();
  if (pid == 0) {
    if (init_node(5) != MCAPI_SUCCESS)
      _exit(1);
    mcapi_status_t s;
    mcx_state_t h = mcx_state_open(dom, 1, 11, MCX_TEST_WAIT_MS, &s);
    mca_uint64_t v = mcx_state_wait_newer(h, 0, MCX_TEST_WAIT_MS, &s);
    while (s == MCAPI_SUCCESS && v < 100)
      v = mcx_state_wait_newer(h, v, MCX_TEST_WAIT_MS, &s);
    uint64_t val = 0;
    mca_uint64_t ver;
    mcx_state_read(h, &val, sizeof val, &ver, &s);
    int ok = s == MCAPI_SUCCESS && ver >= 100 && val == ver * 7;
    mcapi_finalize(&s);
    _exit(ok ? 0 : 2);
  }
  for (uint64_t i = 1; i <= 100; i++) {
    uint64_t val = i * 7;
    mcx_state_write(w, &val, sizeof val, &st);
    usleep(200);
  }
  int ws = 0;
  waitpid(pid, &ws, 0);
  CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  mcapi_finalize(&st);
}

int main(void)
{
  if (!getenv("MCX_NAMESPACE"))
    setenv("MCX_NAMESPACE", "test_state", 1);
  for (int mode = 0; mode < 3; mode++) {
    lk = mode == 2 ? MCX_LOCKING_KERNEL : mode ? MCX_LOCKING_GLOBAL : MCX_LOCKING_LOCKFREE;
    dom = (mcapi_domain_t)(1 + mode);
    printf("-- %s locking\n", mode == 2 ? "kernel" : mode ? "global" : "lock-free");
    RUN(write_read_versions_and_errors);
    RUN(other_nodes_read_and_wait_but_do_not_write);
    RUN(reader_in_another_process);
  }
  return mcx_test_report();
}
