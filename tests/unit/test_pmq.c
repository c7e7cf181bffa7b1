/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pmq transport's own behaviour: how it is selected, the kernel limits it
 * works within and how it reports them, one queue per endpoint sized by
 * NUM_RECV_BUFFERS, cleanup of queues of dead processes and at finalize. The
 * API behaviour shared with shm is tested by test_mcapi_core and the stress
 * and conformance programs, which tests/pmq.cmake runs on pmq as well.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"

static int listable(void)
{
  mcx_pmq_limits_t l;
  mcx_pmq_limits(&l);
  return l.listable;
}

/* The namespace part of partition (and queue) names, as the library cleans MCX_NAMESPACE. */
static const char *name_space(void)
{
  static char clean[25];
  const char *ns = getenv("MCX_NAMESPACE");
  size_t k = 0;
  for (; ns && *ns && k < sizeof clean - 1; ns++)
    if ((*ns >= 'a' && *ns <= 'z') || (*ns >= 'A' && *ns <= 'Z') || (*ns >= '0' && *ns <= '9') ||
        *ns == '-' || *ns == '_')
      clean[k++] = *ns;
  clean[k] = 0;
  return k ? clean : "default";
}

/* Queues in /dev/mqueue of domain @p dom created by @p pid (0: any pid). */
static int count_queues(mcapi_domain_t dom, pid_t pid, char *first, int n)
{
  char prefix[96];
  if (pid)
    snprintf(prefix, sizeof prefix, "mcx-%u-%s-d%u-p%d-", (unsigned)geteuid(), name_space(), dom,
             (int)pid);
  else
    snprintf(prefix, sizeof prefix, "mcx-%u-%s-d%u-p", (unsigned)geteuid(), name_space(), dom);
  DIR *d = opendir("/dev/mqueue");
  if (!d)
    return -1;
  int c = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL)
    if (!strncmp(de->d_name, prefix, strlen(prefix))) {
      if (first && c == 0)
        snprintf(first, (size_t)n, "/%.100s", de->d_name);
      c++;
    }
  closedir(d);
  return c;
}

static void init_pmq(mcapi_domain_t dom, mcapi_node_t node, uint32_t max_msg)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.transport = MCX_TRANSPORT_PMQ;
  p.max_msg_size = max_msg;
  mcapi_initialize(dom, node, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

static void fini(void)
{
  mcapi_status_t st;
  mcapi_finalize(&st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
}

TEST(selected_by_parameter_or_environment)
{
  mcapi_status_t st;
  mcapi_info_t info;
  CHECK(mcx_transport() == MCX_TRANSPORT_DEFAULT); /* not a node */
  init_pmq(30, 1, 0);
  CHECK(mcx_transport() == MCX_TRANSPORT_PMQ);
  fini();
  /* transport 0 (DEFAULT) lets MCX_TRANSPORT decide. */
  setenv("MCX_TRANSPORT", "pmq", 1);
  mcapi_initialize(31, 1, NULL, NULL, &info, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcx_transport() == MCX_TRANSPORT_PMQ);
  fini();
  setenv("MCX_TRANSPORT", "shm", 1);
  mcapi_initialize(31, 1, NULL, NULL, &info, &st);
  CHECK(mcx_transport() == MCX_TRANSPORT_SHM);
  fini();
  unsetenv("MCX_TRANSPORT");
  mcapi_param_t p;
  mcx_param_init(&p);
  p.transport = (mcx_transport_t)3;
  mcapi_initialize(31, 1, NULL, &p, &info, &st);
  CHECK_STATUS(st, MCAPI_ERR_PARAMETER);
}

static unsigned read_proc(const char *name)
{
  char path[96];
  snprintf(path, sizeof path, "/proc/sys/fs/mqueue/%s", name);
  FILE *f = fopen(path, "r");
  unsigned v = 0;
  if (f) {
    if (fscanf(f, "%u", &v) != 1)
      v = 0;
    fclose(f);
  }
  return v;
}

TEST(limits_are_reported_and_bound_the_payload)
{
  mcx_pmq_limits_t l;
  CHECK(mcx_pmq_limits(NULL) == -1);
  CHECK(mcx_pmq_limits(&l) == 0);
  CHECK_EQ_U(l.msg_max, read_proc("msg_max"));
  CHECK_EQ_U(l.msgsize_max, read_proc("msgsize_max"));
  CHECK_EQ_U(l.queues_max, read_proc("queues_max"));
  struct rlimit rl;
  getrlimit(RLIMIT_MSGQUEUE, &rl);
  CHECK(l.rlimit == (rl.rlim_cur == RLIM_INFINITY ? ~0ULL : (unsigned long long)rl.rlim_cur));
  CHECK(l.max_payload == 0 && l.default_depth == 0); /* not a pmq node */
  printf("   msg_max %u, msgsize_max %u, queues_max %u, RLIMIT_MSGQUEUE %llu, %sprivileged, "
         "/dev/mqueue %s\n",
         l.msg_max, l.msgsize_max, l.queues_max, l.rlimit, l.privileged ? "" : "not ",
         l.listable ? "mounted" : "not mounted");
  init_pmq(32, 1, 0);
  CHECK(mcx_pmq_limits(&l) == 0);
  unsigned want = MCAPI_MAX_MSG_SIZE;
  if (l.msgsize_max && l.msgsize_max < want)
    want = l.msgsize_max; /* the kernel's per-message limit */
  CHECK_EQ_U(l.max_payload, want);
  CHECK(l.default_depth >= 1 && l.default_depth <= MCAPI_MAX_QUEUE_ELEMENTS);
  CHECK(l.default_depth <= l.msg_max || l.msg_max == 0);
  CHECK(l.queue_bytes <= l.rlimit);
  mcapi_status_t st;
  mcapi_endpoint_t e = mcapi_endpoint_create(1, &st);
  size_t sz = 0;
  mcapi_endpoint_get_attribute(e, MCAPI_ENDP_ATTR_MAX_PAYLOAD_SIZE, &sz, sizeof sz, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(sz, want);
  static char big[MCAPI_MAX_MSG_SIZE + 1];
  mcapi_msg_send(e, e, big, want + 1, 0, &st);
  CHECK_STATUS(st, MCAPI_ERR_MSG_SIZE);
  fini();
}

TEST(one_queue_per_endpoint_sized_by_num_recv_buffers)
{
  if (!listable()) {
    printf("   /dev/mqueue is not mounted: skipped\n");
    return;
  }
  mcapi_status_t st;
  init_pmq(33, 1, 0);
  mcx_pmq_limits_t l;
  mcx_pmq_limits(&l);
  mcapi_endpoint_t e = mcapi_endpoint_create(7, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  char name[128] = "";
  CHECK_EQ_U(count_queues(33, getpid(), name, sizeof name), 1);
  mqd_t q = mq_open(name, O_RDONLY);
  CHECK(q != (mqd_t)-1);
  struct mq_attr a;
  mq_getattr(q, &a);
  CHECK_EQ_U(a.mq_maxmsg, l.default_depth);
  CHECK_EQ_U(a.mq_msgsize, l.max_payload);
  mq_close(q);
  /* Priorities travel as mq priorities: 0 (highest) is MCAPI_MAX_PRIORITY. */
  mcapi_msg_send(e, e, "p3", 2, 3, &st);
  mcapi_msg_send(e, e, "p0", 2, 0, &st);
  CHECK_EQ_U(mcapi_msg_available(e, &st), 2);
  char buf[8];
  size_t n;
  mcapi_msg_recv(e, buf, sizeof buf, &n, &st);
  CHECK(n == 2 && !memcmp(buf, "p0", 2));
  mcapi_msg_recv(e, buf, sizeof buf, &n, &st);
  CHECK(n == 2 && !memcmp(buf, "p3", 2));
  /* NUM_RECV_BUFFERS is mq_maxmsg: a new queue (a new name) of that size. */
  mcapi_uint_t depth = 2;
  mcapi_endpoint_set_attribute(e, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  char name2[128] = "";
  CHECK_EQ_U(count_queues(33, getpid(), name2, sizeof name2), 1);
  CHECK(strcmp(name, name2) != 0);
  q = mq_open(name2, O_RDONLY);
  CHECK(q != (mqd_t)-1);
  mq_getattr(q, &a);
  CHECK_EQ_U(a.mq_maxmsg, 2);
  mq_close(q);
  /* Deleting the endpoint removes its queue. */
  mcapi_endpoint_delete(e, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(count_queues(33, getpid(), NULL, 0), 0);
  mcapi_endpoint_create(8, &st);
  CHECK_EQ_U(count_queues(33, getpid(), NULL, 0), 1);
  fini(); /* finalize deletes it */
  CHECK_EQ_U(count_queues(33, getpid(), NULL, 0), 0);
}

/* Runs @p fn in a child process; returns its exit status (0 = all checks passed). */
static int in_child(int (*fn)(void))
{
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int r = fn();
    fflush(stdout);
    _exit(r);
  }
  int ws = 0;
  waitpid(pid, &ws, 0);
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : 100;
}

static int child_small_rlimit(void)
{
  struct rlimit rl = {1024, 1024}; /* below the smallest queue of 1024-byte messages */
  if (setrlimit(RLIMIT_MSGQUEUE, &rl) != 0)
    return 10;
  init_pmq(34, 1, 0);
  mcapi_status_t st;
  mcapi_endpoint_create(1, &st);
  mcx_pmq_limits_t l;
  mcx_pmq_limits(&l);
  int ok = st == MCAPI_ERR_MEM_LIMIT && strstr(l.last_error, "RLIMIT_MSGQUEUE") != NULL;
  printf("   endpoint_create under RLIMIT_MSGQUEUE 1024: status %u, \"%s\"\n", st, l.last_error);
  fini();
  return ok && mcx_test_failures == 0 ? 0 : 1;
}

TEST(rlimit_msgqueue_reports_mem_limit)
{
  if (getenv("MCX_TEST_EMULATOR")) { /* set by the cross toolchains' CMAKE_CROSSCOMPILING_EMULATOR */
    printf("   SKIP under %s: it does not apply the per-process message-queue limits\n", getenv("MCX_TEST_EMULATOR"));
    return;
  }
  CHECK_EQ_U(in_child(child_small_rlimit), 0);
  if (listable())
    CHECK_EQ_U(count_queues(34, 0, NULL, 0), 0);
}

static int child_unprivileged(void)
{
  if (setgid(65534) != 0 || setuid(65534) != 0)
    return 10;
  mcx_pmq_limits_t l;
  mcx_pmq_limits(&l);
  if (l.privileged)
    return 11;
  /* An explicit 64 KiB asks for more than msgsize_max: capped, and reported. */
  init_pmq(35, 1, MCAPI_MAX_MSG_SIZE);
  mcx_pmq_limits(&l);
  mcapi_status_t st;
  mcapi_endpoint_t e = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  size_t sz = 0;
  mcapi_endpoint_get_attribute(e, MCAPI_ENDP_ATTR_MAX_PAYLOAD_SIZE, &sz, sizeof sz, &st);
  if (l.msgsize_max && l.msgsize_max < MCAPI_MAX_MSG_SIZE)
    CHECK_EQ_U(sz, l.msgsize_max);
  CHECK(l.default_depth <= l.msg_max);
  /* A depth above msg_max: MEM_LIMIT, the message names msg_max, the queue stays. */
  mcapi_uint_t depth = 2;
  while (depth <= l.msg_max)
    depth *= 2;
  if (depth <= MCAPI_MAX_QUEUE_ELEMENTS) {
    mcapi_endpoint_set_attribute(e, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
    CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
    mcx_pmq_limits(&l);
    CHECK(strstr(l.last_error, "msg_max") != NULL);
    printf("   unprivileged NUM_RECV_BUFFERS %u: \"%s\"\n", depth, l.last_error);
    mcapi_msg_send(e, e, "x", 1, 0, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  fini();
  return mcx_test_failures == 0 ? 0 : 1;
}

TEST(unprivileged_process_within_msg_max_and_msgsize_max)
{
  if (getenv("MCX_TEST_EMULATOR")) { /* set by the cross toolchains' CMAKE_CROSSCOMPILING_EMULATOR */
    printf("   SKIP under %s: it does not apply the per-process message-queue limits\n", getenv("MCX_TEST_EMULATOR"));
    return;
  }
  if (geteuid() != 0) {
    CHECK_EQ_U(in_child(child_unprivileged), 11); /* setuid refused: not root */
    printf("   not root: cannot drop to an unprivileged user, skipped\n");
    return;
  }
  CHECK_EQ_U(in_child(child_unprivileged), 0);
}

static int child_dies_with_queues(void)
{
  init_pmq(36, 1, 0);
  mcapi_status_t st;
  mcapi_endpoint_create(1, &st);
  mcapi_endpoint_create(2, &st);
  return st == MCAPI_SUCCESS ? 0 : 1; /* exits without finalize */
}

TEST(queues_of_a_dead_process_are_removed_at_domain_creation)
{
  if (!listable()) {
    printf("   /dev/mqueue is not mounted: skipped\n");
    return;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0)
    _exit(child_dies_with_queues());
  int ws;
  waitpid(pid, &ws, 0);
  CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  CHECK_EQ_U(count_queues(36, pid, NULL, 0), 2);
  init_pmq(36, 1, 0); /* the domain is created here: the dead child's queues go */
  CHECK_EQ_U(count_queues(36, pid, NULL, 0), 0);
  fini();
  CHECK_EQ_U(count_queues(36, 0, NULL, 0), 0);
}

/* Limits below the MCAPI sizes (a queue of MCAPI_MAX_QUEUE_ELEMENTS messages
 * of MCAPI_MAX_MSG_SIZE bytes) are said once per process on stderr, whatever
 * the debug level, naming the sysctl and the value that lifts it: a program
 * written for those sizes then knows why its queue is full earlier. */
static int child_limits_said_once(void)
{
  char path[] = "/tmp/mcx_pmq_said_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return 2;
  unlink(path);
  fflush(stderr);
  if (dup2(fd, 2) < 0)
    return 3;
  init_pmq(38, 1, 0);
  mcx_pmq_limits_t l;
  mcx_pmq_limits(&l);
  fini();
  init_pmq(39, 1, 0); /* a second domain, and a second initialize */
  fini();
  fflush(stderr);
  char text[4096] = "";
  ssize_t n = pread(fd, text, sizeof text - 1, 0);
  text[n > 0 ? n : 0] = 0;
  int lines = 0;
  for (const char *t = text; (t = strstr(t, "queue limits are below the MCAPI sizes")) != NULL; t++)
    lines++;
  int low = l.default_depth < MCAPI_MAX_QUEUE_ELEMENTS ||
            (l.msgsize_max && l.msgsize_max < MCAPI_MAX_MSG_SIZE) ||
            (l.queues_max && l.queues_max < MCAPI_MAX_ENDPOINTS);
  printf("   default depth %u, msg_max %u: %d line(s)\n", l.default_depth, l.msg_max, lines);
  if (lines != low)
    return 4;
  if (l.msg_max && l.msg_max < MCAPI_MAX_QUEUE_ELEMENTS) {
    char want[96];
    snprintf(want, sizeof want, "fs.mqueue.msg_max is %u (sysctl -w fs.mqueue.msg_max=%d lifts it)",
             l.msg_max, MCAPI_MAX_QUEUE_ELEMENTS);
    if (!strstr(text, want))
      return 5;
  }
  return 0;
}

TEST(limits_below_the_mcapi_sizes_are_said_once)
{
  /* First in the program: the notice is once per process (a fork inherits it). */
  CHECK_EQ_U(in_child(child_limits_said_once), 0);
}

/* An endpoint connected to a channel carries no message: its empty queue is
 * given up at connect and made again by the first message use after the
 * tear-down, so a connection costs one queue of the user's RLIMIT_MSGQUEUE
 * (the reference's pkt and scl programs connect 8 endpoints). */
TEST(connected_endpoints_give_their_queues_up)
{
  if (!listable()) {
    printf("   /dev/mqueue is not mounted: skipped\n");
    return;
  }
  mcapi_status_t st;
  mcapi_request_t r;
  size_t n;
  init_pmq(37, 1, 0);
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(count_queues(37, getpid(), NULL, 0), 2);
  mcapi_pktchan_connect_i(a, b, &r, &st);
  CHECK(mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(count_queues(37, getpid(), NULL, 0), 1); /* the connection's */
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_request_t r2;
  mcapi_pktchan_send_open_i(&sh, a, &r, &st);
  mcapi_pktchan_recv_open_i(&rh, b, &r2, &st);
  CHECK(mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcapi_wait(&r2, &n, MCX_TEST_WAIT_MS, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_send(sh, "pkt", 4, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  void *p;
  mcapi_pktchan_recv(rh, &p, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 4 && !memcmp(p, "pkt", 4));
  mcapi_pktchan_release(p, &st);
  mcapi_pktchan_send_close_i(sh, &r, &st);
  mcapi_pktchan_recv_close_i(rh, &r2, &st);
  CHECK(mcapi_wait(&r, &n, MCX_TEST_WAIT_MS, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(mcapi_wait(&r2, &n, MCX_TEST_WAIT_MS, &st));
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(count_queues(37, getpid(), NULL, 0), 0); /* torn down; the endpoints' not made yet */
  /* Messages again: the first use makes the queue, sized as before. */
  CHECK_EQ_U(mcapi_msg_available(b, &st), 0);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_msg_send(a, b, "msg", 4, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK_EQ_U(count_queues(37, getpid(), NULL, 0), 1);
  CHECK_EQ_U(mcapi_msg_available(b, &st), 1);
  char buf[8];
  mcapi_msg_recv(b, buf, sizeof buf, &n, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  CHECK(n == 4 && !memcmp(buf, "msg", 4));
  mcapi_uint_t depth = 0;
  mcapi_endpoint_get_attribute(b, MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS, &depth, sizeof depth, &st);
  mcx_pmq_limits_t l;
  mcx_pmq_limits(&l);
  CHECK_EQ_U(depth, l.default_depth);
  /* Filled to NUM_RECV_BUFFERS, then full, as before the connection. */
  for (mcapi_uint_t i = 0; i < depth; i++) {
    mcapi_msg_send(a, b, "f", 2, 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  mcapi_boolean_t fail = MCAPI_TRUE;
  mcapi_endpoint_set_attribute(a, MCAPI_ENDP_ATTR_FAIL_ON_MEM_LIMIT, &fail, sizeof fail, &st);
  mcapi_msg_send(a, b, "f", 2, 1, &st);
  CHECK_STATUS(st, MCAPI_ERR_MEM_LIMIT);
  fini();
  CHECK_EQ_U(count_queues(37, 0, NULL, 0), 0);
}

int main(void)
{
  RUN(limits_below_the_mcapi_sizes_are_said_once);
  RUN(selected_by_parameter_or_environment);
  RUN(limits_are_reported_and_bound_the_payload);
  RUN(one_queue_per_endpoint_sized_by_num_recv_buffers);
  RUN(rlimit_msgqueue_reports_mem_limit);
  RUN(unprivileged_process_within_msg_max_and_msgsize_max);
  RUN(queues_of_a_dead_process_are_removed_at_domain_creation);
  RUN(connected_endpoints_give_their_queues_up);
  return mcx_test_report();
}
