/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symptom: pmq queue names were predictable
 * (/mcx-<uid>-<ns>-d<dom>-p<pid>-c<rec>-g<gen>), a channel's queue was opened
 * by name before it was created, EEXIST was taken as "the peer made it" and
 * nobody looked at the owner or mode of an opened queue. Another user that
 * created the name first (mode 0666) received every packet and injected
 * packets the victim took as genuine; a root victim opened even a 0600 queue
 * of another user, and removed others' objects that stood in its way.
 *
 * Cases (as root, the squatter is a second uid in a child process):
 *  - the old predictable names of the victim's endpoints and channel are
 *    created first, mode 0666, by the other user, who then writes a forged
 *    packet into the channel queue: the victim's packets all arrive, none is
 *    forged, the squatter's queues hold nothing of the victim's and are left
 *    in place (never removed by the victim);
 *  - the exact names (the partition's random tag read by the test) created
 *    first, mode 0600: connect and endpoint create fail with a status, the
 *    squatter's queues are not used and not removed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <sys/stat.h>

#include "mcapi.h"
#include "mcx.h"
#include "mcx_test.h"
#include "regress/regress_util.h"
#include "runtime/runtime.h"

#define DOM 7u
#define NPKT 20

static const char forged[] = "FORGED-BY-ANOTHER-USER";
static atomic_int go; /* the sender sends once the forged packet is in */

struct squat {
  char names[16][160];
  int n;
  unsigned mode;
};

static int squat_fn(void *arg)
{
  struct squat *s = arg;
  struct mq_attr a = {.mq_maxmsg = 8, .mq_msgsize = 1024};
  umask(0);
  for (int i = 0; i < s->n; i++) {
    mqd_t q = mq_open(s->names[i], O_RDWR | O_CREAT | O_EXCL | O_NONBLOCK, (mode_t)s->mode, &a);
    if (q == (mqd_t)-1)
      return 10 + i;
    mq_close(q);
  }
  return 0;
}

/* The second user writes a forged packet into every squatted queue it can. */
static int forge_fn(void *arg)
{
  struct squat *s = arg;
  for (int i = 0; i < s->n; i++) {
    mqd_t q = mq_open(s->names[i], O_WRONLY | O_NONBLOCK);
    if (q == (mqd_t)-1)
      return 20 + i;
    mq_send(q, forged, sizeof forged, 0);
    mq_close(q);
  }
  return 0;
}

static long queued(const char *name)
{
  mqd_t q = mq_open(name, O_RDONLY | O_NONBLOCK);
  if (q == (mqd_t)-1)
    return -1;
  struct mq_attr a;
  long n = mq_getattr(q, &a) == 0 ? a.mq_curmsgs : -1;
  mq_close(q);
  return n;
}

static uid_t owner_of(const char *name)
{
  char path[200];
  struct stat st;
  snprintf(path, sizeof path, "/dev/mqueue%s", name);
  return stat(path, &st) == 0 ? st.st_uid : (uid_t)-1;
}

static mcapi_status_t init_pmq(mcapi_node_t node)
{
  mcapi_param_t p;
  mcapi_info_t info;
  mcapi_status_t st;
  mcx_param_init(&p);
  p.transport = MCX_TRANSPORT_PMQ;
  mcapi_initialize(DOM, node, NULL, &p, &info, &st);
  return st;
}

static mcapi_status_t wait_req(mcapi_request_t *r)
{
  mcapi_status_t st;
  size_t n;
  mcapi_wait(r, &n, MCX_TEST_WAIT_MS, &st);
  return st;
}

/* The sending node: connects its endpoint to node 1 port 1, opens, sends NPKT packets. */
static void *sender(void *arg)
{
  (void)arg;
  mcapi_status_t st;
  mcapi_request_t r;
  CHECK_STATUS(init_pmq(2), MCAPI_SUCCESS);
  mcapi_endpoint_t out = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_endpoint_t in = mcapi_endpoint_get(DOM, 1, 1, MCX_TEST_WAIT_MS, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_pktchan_connect_i(out, in, &r, &st);
  CHECK_STATUS(wait_req(&r), MCAPI_SUCCESS);
  mcapi_pktchan_send_hndl_t sh;
  mcapi_pktchan_send_open_i(&sh, out, &r, &st);
  CHECK_STATUS(wait_req(&r), MCAPI_SUCCESS);
  MCX_TEST_AWAIT(atomic_load(&go)); /* event: the squatter is in place */
  for (int i = 0; i < NPKT; i++) {
    char m[32];
    int k = snprintf(m, sizeof m, "genuine-%d", i);
    mcapi_pktchan_send(sh, m, (size_t)k + 1, &st);
    CHECK_STATUS(st, MCAPI_SUCCESS);
  }
  mcapi_pktchan_send_close_i(sh, &r, &st);
  CHECK_STATUS(wait_req(&r), MCAPI_SUCCESS);
  mcapi_finalize(&st);
  return NULL;
}

TEST(predictable_names_squatted_first)
{
  if (!regress_can_switch_user("squatted pmq names"))
    return;
  struct squat s = {.n = 0, .mode = 0666};
  char base[128];
  snprintf(base, sizeof base, "/mcx-%u-%s-d%u-p%d", (unsigned)geteuid(), regress_name_space(), DOM,
           (int)getpid());
  for (int rec = 0; rec < 2; rec++)
    for (int g = 1; g <= 2; g++)
      snprintf(s.names[s.n++], sizeof s.names[0], "%s-c%d-g%d", base, rec, g);
  for (int e = 0; e < 4; e++)
    snprintf(s.names[s.n++], sizeof s.names[0], "%s-e%d-g1", base, e);
  CHECK_EQ_U(regress_as_other_user(squat_fn, &s), 0);

  mcapi_status_t st;
  mcapi_request_t r;
  CHECK_STATUS(init_pmq(1), MCAPI_SUCCESS);
  mcapi_endpoint_t in = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_uint_t tmo = MCX_TEST_WAIT_MS; /* the packets are expected; the sender closes after them */
  mcapi_endpoint_set_attribute(in, MCAPI_ENDP_ATTR_TIMEOUT, &tmo, sizeof tmo, &st);
  pthread_t t;
  pthread_create(&t, NULL, sender, NULL);
  mcapi_pktchan_recv_hndl_t rh;
  mcapi_pktchan_recv_open_i(&rh, in, &r, &st);
  CHECK_STATUS(wait_req(&r), MCAPI_SUCCESS);
  /* The other user injects a packet into the names it holds. */
  struct squat only_chan = {.n = 4, .mode = 0};
  memcpy(only_chan.names, s.names, sizeof only_chan.names[0] * 4);
  CHECK_EQ_U(regress_as_other_user(forge_fn, &only_chan), 0);
  atomic_store(&go, 1);
  int genuine = 0, fakes = 0;
  for (int i = 0; i < NPKT + 1; i++) {
    void *buf;
    size_t sz;
    mcapi_pktchan_recv(rh, &buf, &sz, &st);
    if (st != MCAPI_SUCCESS)
      break;
    char want[32];
    snprintf(want, sizeof want, "genuine-%d", genuine);
    if (!strcmp(buf, forged))
      fakes++;
    else if (!strcmp(buf, want))
      genuine++;
    mcapi_pktchan_release(buf, &st);
  }
  CHECK_EQ_U(genuine, NPKT);
  CHECK_EQ_U(fakes, 0);
  pthread_join(t, NULL);
  mcapi_pktchan_recv_close_i(rh, &r, &st);
  wait_req(&r);
  mcapi_finalize(&st);
  /* The squatter's queues: still there, still its own, holding nothing of ours. */
  for (int i = 0; i < s.n; i++) {
    CHECK_EQ_U(owner_of(s.names[i]), REGRESS_OTHER_UID);
    long n = queued(s.names[i]);
    CHECK(n == (i < 4 ? 1 : 0)); /* its own forged packet, or nothing */
    mq_unlink(s.names[i]);
  }
}

TEST(exact_names_squatted_first)
{
  if (!regress_can_switch_user("squatted exact pmq names"))
    return;
  mcapi_status_t st;
  mcapi_request_t r;
  CHECK_STATUS(init_pmq(1), MCAPI_SUCCESS);
  const mcx__domain_t *d = mcx__self.dom;
  mcapi_endpoint_t a = mcapi_endpoint_create(1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  /* The test reads the names' tail (the partition's random tag) from its own
   * first endpoint's queue; another user can list neither. */
  char tag[64] = "";
  char prefix[160];
  snprintf(prefix, sizeof prefix, "%s-p%d-e0-g1", d->name + 1, (int)getpid());
  DIR *dir = opendir("/dev/mqueue");
  struct dirent *de;
  while (dir && (de = readdir(dir)) != NULL)
    if (!strncmp(de->d_name, prefix, strlen(prefix)))
      snprintf(tag, sizeof tag, "%s", de->d_name + strlen(prefix));
  if (dir)
    closedir(dir);
  mcapi_endpoint_t b = mcapi_endpoint_create(2, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  struct squat s = {.n = 0, .mode = 0600};
  /* The next connection (record 0, generation 1) and the next endpoints' queues. */
  snprintf(s.names[s.n++], sizeof s.names[0], "%s-p%d-c0-g1%s", d->name, (int)getpid(), tag);
  for (int e = 2; e < 4; e++)
    snprintf(s.names[s.n++], sizeof s.names[0], "%s-p%d-e%d-g1%s", d->name, (int)getpid(), e, tag);
  CHECK_EQ_U(regress_as_other_user(squat_fn, &s), 0);
  mcapi_pktchan_connect_i(a, b, &r, &st);
  if (st == MCAPI_SUCCESS || st == MCAPI_PENDING)
    st = wait_req(&r);
  CHECK_STATUS(st, MCAPI_ERR_GENERAL);
  mcapi_endpoint_create(3, &st);
  CHECK_STATUS(st, MCAPI_ERR_GENERAL);
  /* Still nothing connected: the endpoints stay usable for messages. */
  mcapi_msg_send(a, b, "x", 2, 1, &st);
  CHECK_STATUS(st, MCAPI_SUCCESS);
  mcapi_finalize(&st);
  for (int i = 0; i < s.n; i++) {
    CHECK_EQ_U(owner_of(s.names[i]), REGRESS_OTHER_UID);
    CHECK(queued(s.names[i]) == 0);
    mq_unlink(s.names[i]);
  }
}

int main(void)
{
  regress_watchdog(100);
  struct stat st;
  if (stat("/dev/mqueue", &st) != 0) {
    printf("SKIP: /dev/mqueue is not mounted (owners of queues cannot be examined)\n");
    return 0;
  }
  RUN(predictable_names_squatted_first);
  RUN(exact_names_squatted_first);
  return mcx_test_report();
}
