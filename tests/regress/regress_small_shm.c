/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symptom: with a small /dev/shm (64 MiB in a container, or less than one
 * partition) mcapi_initialize succeeded and the process died of SIGBUS later,
 * at its first touch of a page the tmpfs could not supply.
 *
 * Case (as root): a child enters a private mount namespace (unshare -m),
 * mounts a tmpfs of 256 KiB on /dev/shm (the only place shm_open looks), and
 * initializes a node: the call fails with MCAPI_ERR_NODE_INITFAILED (the
 * log says the partition does not fit) and nothing is left on the tmpfs;
 * had it succeeded, the child fills every endpoint queue, which would die of
 * SIGBUS. A tmpfs as large as the partition needs works.
 */
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "regress/regress_util.h"

/* Child: 0 init refused cleanly, 10 init succeeded and survived use, 20+ setup failed. */
static int in_small_shm(const char *size)
{
  if (unshare(CLONE_NEWNS) != 0)
    return 20;
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    return 21;
  char opts[64];
  snprintf(opts, sizeof opts, "size=%s,mode=1777", size);
  if (mount("tmpfs", "/dev/shm", "tmpfs", 0, opts) != 0)
    return 22;
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(5, 1, NULL, NULL, &info, &st);
  if (st == MCAPI_ERR_NODE_INITFAILED || st == MCAPI_ERR_MEM_LIMIT) {
    struct stat sb;
    char path[160];
    snprintf(path, sizeof path, "/dev/shm/mcx-%u-%s-d5", (unsigned)geteuid(), regress_name_space());
    return stat(path, &sb) == 0 ? 23 : 0; /* nothing left behind */
  }
  if (st != MCAPI_SUCCESS)
    return 24;
  /* Touch the whole partition: every endpoint's queues, full. */
  char msg[MCAPI_MAX_MSG_SIZE];
  memset(msg, 7, sizeof msg);
  for (int p = 0; p < 16; p++) {
    mcapi_endpoint_t e = mcapi_endpoint_create((mcapi_port_t)p, &st);
    if (st != MCAPI_SUCCESS)
      break;
    mcapi_boolean_t fail = MCAPI_TRUE;
    mcapi_endpoint_set_attribute(e, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
    for (int prio = 0; prio <= MCAPI_MAX_PRIORITY; prio++)
      for (int i = 0; i < 4096; i++) {
        mcapi_msg_send(e, e, msg, sizeof msg, (mcapi_priority_t)prio, &st);
        if (st != MCAPI_SUCCESS)
          break;
      }
  }
  mcapi_finalize(&st);
  return 10;
}

static int run_child(const char *size)
{
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    _exit(in_small_shm(size));
  }
  int ws;
  waitpid(c, &ws, 0);
  if (WIFSIGNALED(ws)) {
    printf("   tmpfs of %s: the node died of signal %d\n", size, WTERMSIG(ws));
    return 128 + WTERMSIG(ws);
  }
  return WEXITSTATUS(ws);
}

TEST(partition_that_does_not_fit)
{
  int r = run_child("256k");
  if (r >= 20 && r < 30) {
    printf("   SKIP: no private mount namespace with a tmpfs here (step %d failed)\n", r);
    return;
  }
  CHECK_EQ_U(r, 0);
}

TEST(partition_that_fits)
{
  int r = run_child("64m");
  if (r >= 20 && r < 30 && r != 23 && r != 24) {
    printf("   SKIP: no private mount namespace with a tmpfs here (step %d failed)\n", r);
    return;
  }
  CHECK_EQ_U(r, 10);
}

int main(void)
{
  regress_watchdog(100);
  if (geteuid() != 0) {
    printf("SKIP: mounting a small tmpfs in a private mount namespace needs root\n");
    return 0;
  }
  RUN(partition_that_does_not_fit);
  RUN(partition_that_fits);
  return mcx_test_report();
}
