/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symptom: the partition's control-plane lock word set to the tid of a live
 * thread that is no node of the domain (a forged word, or a process that
 * stopped while holding it) hung every control-plane call forever; a word
 * holding the "deleted" mark let calls run without the lock.
 *
 * Cases: the word names a live process that is not a node (a sleeping
 * child): endpoint create, delete, channel connect, a second process's
 * initialize and finalize each return within the program's watchdog with a
 * status (MCAPI_ERR_GENERAL, or NODE_INITFAILED / NODE_FINALFAILED), and the
 * domain works again once the word is cleared; the word holds garbage (the
 * deleted mark): the calls fail with MCAPI_ERR_GENERAL; the word names a
 * thread that does not exist: it is taken over (a dead holder) and the call
 * succeeds.
 */
#include <signal.h>
#include <sys/prctl.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "regress/regress_util.h"
#include "runtime/runtime.h"

#define DOM 9u

static mcapi_status_t init(mcapi_node_t node)
{
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(DOM, node, NULL, NULL, &info, &st);
  return st;
}

static mcx_atomic_u32 *lock_word(void) { return &mcx__self.dom->hdr->admin.word; }

TEST(live_foreign_holder)
{
  CHECK_STATUS(init(1), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  fflush(stdout);
  pid_t sleeper = fork();
  if (sleeper == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives the test */
    pause();
    _exit(0);
  }
  mcx_store_relaxed(lock_word(), (uint32_t)sleeper); /* forged: a live thread, no node */
  mcapi_endpoint_create(3, &st);
  CHECK_STATUS(st, MCAPI_ERR_GENERAL);
  mcapi_endpoint_delete(b, &st);
  CHECK_STATUS(st, MCAPI_ERR_GENERAL);
  mcapi_request_t r;
  mcapi_pktchan_connect_i(a, b, &r, &st);
  CHECK_STATUS(st, MCAPI_ERR_GENERAL);
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) {
    mcapi_status_t s2 = init(2);
    _exit(s2 == MCAPI_ERR_NODE_INITFAILED ? 0 : 1);
  }
  int ws;
  waitpid(c, &ws, 0);
  CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_ERR_NODE_FINALFAILED);
  /* The word cleared: everything works again. */
  mcx_store_relaxed(lock_word(), 0);
  mcapi_endpoint_create(3, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_endpoint_delete(b, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  kill(sleeper, SIGKILL);
  waitpid(sleeper, NULL, 0);
}

TEST(garbage_words)
{
  CHECK_STATUS(init(1), MCAPI_SUCCESS);
  mcapi_status_t st;
  mcx_store_relaxed(lock_word(), 0x3fffffffu); /* no tid is that large */
  mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_ERR_GENERAL);
  mcx_store_relaxed(lock_word(), 0);
  /* A thread that does not exist: a dead holder, taken over. */
  mcx_store_relaxed(lock_word(), 0x3ffffff0u);
  mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

int main(void)
{
  regress_watchdog(60);
  RUN(live_foreign_holder);
  RUN(garbage_words);
  return mcx_test_report();
}
