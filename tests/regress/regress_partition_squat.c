/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symptom: another user that created /dev/shm/mcx-<victim uid>-<ns>-d<n>
 * first made every mcapi_initialize of the victim fail, for good: the victim
 * cannot remove the object (sticky /dev/shm). It was never joined (good).
 *
 * Cases (as root, the squatter is a second uid in a child process): with
 * the default name held by the other user (mode 0666 and 0600), two of the
 * victim's processes initialize in the domain and exchange a message; the
 * private name is recorded in a 0700 directory of the victim
 * ($XDG_RUNTIME_DIR/libmca here) and `mca domains` names the squatter; the
 * squatter's object is still there, untouched (size 0), and never joined.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "regress/regress_util.h"

static char part[128];
static unsigned squat_mode;

static int squat_fn(void *arg)
{
  (void)arg;
  umask(0);
  int fd = shm_open(part, O_RDWR | O_CREAT | O_EXCL, (mode_t)squat_mode);
  if (fd < 0)
    return 10;
  close(fd);
  return 0;
}

static mcapi_status_t init(mcapi_domain_t dom, mcapi_node_t node)
{
  mcapi_info_t info;
  mcapi_status_t st;
  mcapi_initialize(dom, node, NULL, NULL, &info, &st);
  return st;
}

static void run_case(mcapi_domain_t dom, unsigned mode)
{
  snprintf(part, sizeof part, "/mcx-%u-%s-d%u", (unsigned)geteuid(), regress_name_space(), dom);
  squat_mode = mode;
  shm_unlink(part);
  CHECK_EQ_U(regress_as_other_user(squat_fn, NULL), 0);
  mcapi_status_t st = init(dom, 1);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  if (st != MCAPI_SUCCESS) {
    shm_unlink(part);
    return;
  }
  mcapi_endpoint_t in = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) { /* a second process of the victim finds the same domain */
    mcapi_status_t s2 = init(dom, 2);
    if (s2 != MCAPI_SUCCESS)
      _exit(1);
    mcapi_endpoint_t out = mcapi_endpoint_create(1, &s2);
    mcapi_endpoint_t to = mcapi_endpoint_get(dom, 1, 1, MCX_TEST_WAIT_MS, &s2);
    if (s2 != MCAPI_SUCCESS)
      _exit(2);
    mcapi_msg_send(out, to, "hello", 6, 1, &s2);
    mcapi_finalize(&s2);
    _exit(0);
  }
  char buf[16] = "";
  size_t n = 0;
  mcapi_uint_t tmo = 5000;
  mcapi_endpoint_set_attribute(in, MCAPI_ENDP_ATTR_TIMEOUT, &tmo, sizeof tmo, &st);
  mcapi_msg_recv(in, buf, sizeof buf, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(!strcmp(buf, "hello"));
  int ws;
  waitpid(c, &ws, 0);
  CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  /* mca domains tells whose the default name is and which name is in use. */
  char cmd[400], line[600];
  snprintf(cmd, sizeof cmd, "%s domains --namespace %s", MCX_MCA_PATH, regress_name_space());
  FILE *f = popen(cmd, "r");
  int said = 0;
  while (f && fgets(line, sizeof line, f))
    said |= strstr(line, part + 1) && strstr(line, "another user (uid 64999") &&
            strstr(line, "private name");
  if (f)
    pclose(f);
  CHECK(said);
  mcapi_finalize(&st);
  /* The squatter's object: untouched and still its own. */
  struct stat sb;
  char path[160];
  snprintf(path, sizeof path, "/dev/shm%s", part);
  CHECK(stat(path, &sb) == 0 && sb.st_uid == REGRESS_OTHER_UID && sb.st_size == 0);
  shm_unlink(part);
}

TEST(squatted_partition_name)
{
  if (!regress_can_switch_user("squatted partition names"))
    return;
  run_case(3, 0666);
  run_case(4, 0600);
  /* The record: a 0700 directory of ours holding the private names. */
  char rec[300];
  struct stat sb;
  snprintf(rec, sizeof rec, "%s/libmca", getenv("XDG_RUNTIME_DIR"));
  CHECK(stat(rec, &sb) == 0 && (sb.st_mode & 0777) == 0700 && sb.st_uid == geteuid());
  snprintf(rec, sizeof rec, "%s/libmca/mcx-%u-%s-d3", getenv("XDG_RUNTIME_DIR"),
           (unsigned)geteuid(), regress_name_space());
  CHECK(access(rec, R_OK) == 0);
}

int main(void)
{
  regress_watchdog(100);
  /* A runtime directory of our own for the records (as a login session has). */
  char dir[] = "/tmp/mcx-regress-XXXXXX";
  if (!mkdtemp(dir)) {
    printf("SKIP: no temporary directory\n");
    return 0;
  }
  setenv("XDG_RUNTIME_DIR", dir, 1);
  RUN(squatted_partition_name);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0)
    printf("could not remove %s\n", dir);
  return mcx_test_report();
}
