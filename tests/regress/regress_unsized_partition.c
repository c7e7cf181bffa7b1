/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symptom: a creator killed between shm_open(O_CREAT) and ftruncate left a
 * 0-byte partition that blocked the domain: mcapi_initialize failed on it
 * (8 in 2,100 random creator kills), and `mca domains --clean` could not
 * remove it. A later mcapi_initialize must retire it, as stale partitions
 * are, and go on.
 *
 * Cases: an empty partition object of our own under the domain's name, as a
 * killed creator leaves it: mode 0600, a more open mode (a creator that asked
 * for shm_mode 0644, or whose umask-narrowed mode it never pinned) and a
 * narrower one; creators killed at random points of their initialize (30
 * rounds, times MCX_STRESS_SECONDS).
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "regress/regress_util.h"

static char part[128];

static mcapi_status_t init(mcapi_domain_t dom, mcapi_node_t node)
{
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, node, NULL, NULL, &info, &st);
  return st;
}

static void leave_empty(mcapi_domain_t dom, mode_t mode)
{
  snprintf(part, sizeof part, "/mcx-%u-%s-d%u", (unsigned)geteuid(), regress_name_space(), dom);
  shm_unlink(part);
  mode_t old = umask(0);
  int fd = shm_open(part, O_RDWR | O_CREAT | O_EXCL, mode);
  umask(old);
  CHECK(fd >= 0);
  if (fd >= 0)
    close(fd);
}

TEST(empty_partition_is_retired)
{
  static const mode_t modes[] = {0600, 0644, 0400};
  for (unsigned i = 0; i < sizeof modes / sizeof modes[0]; i++) {
    leave_empty(11 + i, modes[i]);
    mcapi_status_t st = init(11 + i, 1);
    CHECK_STATUS(st, MCAPI_SUCCESS);
    if (st == MCAPI_SUCCESS) {
      mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      mcapi_msg_send(a, a, "x", 2, 1, &st);
      CHECK_STATUS(st, MCAPI_SUCCESS);
      mcapi_finalize(&st);
    }
    shm_unlink(part);
  }
}

/* Creators killed at random points of their mcapi_initialize (SIGKILL
 * after 0..3 ms), each followed by a node of another process that must
 * initialize, use the domain and finalize. */
TEST(killed_creators)
{
  int fails = 0, rounds = (int)(30 * mcx_test_stress_seconds(1.0));
  if (rounds > 2000)
    rounds = 2000;
  srand(12345);
  for (int i = 0; i < rounds; i++) {
    pid_t c = fork();
    if (c == 0) {
      init(20, 1);
      pause();
      _exit(0);
    }
    usleep((useconds_t)(rand() % 3000));
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    pid_t p = fork();
    if (p == 0) {
      mcapi_status_t st = init(20, 2);
      if (st == MCAPI_SUCCESS) {
        mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
        if (st == MCAPI_SUCCESS)
          mcapi_msg_send(a, a, "x", 2, 1, &st);
        mcapi_status_t f;
        mcapi_finalize(&f);
      }
      _exit(st == MCAPI_SUCCESS ? 0 : 1);
    }
    int ws;
    waitpid(p, &ws, 0);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
      fails++;
  }
  printf("   %d of %d nodes after a killed creator failed to initialize\n", fails, rounds);
  CHECK_EQ_U(fails, 0);
}

/* `mca domains --clean` removes an empty partition whose creator is gone. */
TEST(domains_clean_removes_it)
{
  leave_empty(30, 0600);
  char path[200], cmd[400];
  snprintf(path, sizeof path, "/dev/shm%s", part);
  struct timespec old[2] = {{.tv_sec = time(NULL) - 60}, {.tv_sec = time(NULL) - 60}};
  utimensat(AT_FDCWD, path, old, 0); /* as a creator that died a minute ago */
  snprintf(cmd, sizeof cmd, "%s domains --clean --namespace %s >/dev/null", MCX_MCA_PATH,
           regress_name_space());
  CHECK(system(cmd) == 0);
  CHECK(access(path, F_OK) != 0);
  shm_unlink(part);
}

int main(void)
{
  regress_watchdog(100);
  RUN(empty_partition_is_retired);
  RUN(killed_creators);
  RUN(domains_clean_removes_it);
  return mcx_test_report();
}
