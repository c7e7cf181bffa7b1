/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peer baseline: iceoryx (Debian iceoryx + libiceoryx-binding-c-dev), its C
 * binding's publisher/subscriber over RouDi's shared memory, one topic per
 * direction. The sender loans a chunk, copies the item in and publishes it;
 * the receiver takes the chunk, copies it out and releases it. Lossless:
 * the publisher waits for a slow subscriber (WAIT_FOR_CONSUMER /
 * BLOCK_PRODUCER), as the other peers do.
 *
 * The benchmark starts its own RouDi daemon (`iox-roudi` with small memory
 * pools written to a temporary config file) for the first iceoryx sample and
 * asks it to stop at the end of the run (bench_iceoryx_stop). Skipped with a note
 * when iceoryx is absent at build time or RouDi does not come up (another
 * RouDi already running on the machine, for instance).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/core/bench.h"

#ifdef MCA_HAVE_ICEORYX
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <iceoryx_binding_c/chunk.h>
#include <iceoryx_binding_c/log.h>
#include <iceoryx_binding_c/publisher.h>
#include <iceoryx_binding_c/runtime.h>
#include <iceoryx_binding_c/subscriber.h>

#ifndef MCA_IOX_ROUDI
#define MCA_IOX_ROUDI "iox-roudi"
#endif

static pid_t roudi_pid;
static int roudi_state; /* 0 not tried, 1 up (runtime initialized), -1 failed */
static char roudi_note[200];
static char roudi_cfg[64];
static unsigned topic_counter;

static int roudi_start(void)
{
  if (roudi_state)
    return roudi_state;
  roudi_state = -1;
  snprintf(roudi_cfg, sizeof roudi_cfg, "/tmp/mca-bench-roudi-%d.toml", (int)getpid());
  FILE *f = fopen(roudi_cfg, "w");
  if (!f) {
    snprintf(roudi_note, sizeof roudi_note, "iceoryx: cannot write %s", roudi_cfg);
    return -1;
  }
  /* chunks carry a header: each pool holds a payload size of the bench plus room for it */
  fprintf(f, "[general]\nversion = 1\n\n[[segment]]\n\n"
             "[[segment.mempool]]\nsize = 128\ncount = 2048\n\n"
             "[[segment.mempool]]\nsize = 1152\ncount = 1024\n\n"
             "[[segment.mempool]]\nsize = 8320\ncount = 1024\n\n"
             "[[segment.mempool]]\nsize = 16512\ncount = 512\n\n"
             "[[segment.mempool]]\nsize = 65664\ncount = 256\n");
  fclose(f);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* never outlives the benchmark */
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execlp(MCA_IOX_ROUDI, MCA_IOX_ROUDI, "-c", roudi_cfg, "-l", "error", "-m", "off", (char *)NULL);
    _exit(127);
  }
  if (pid < 0) {
    snprintf(roudi_note, sizeof roudi_note, "iceoryx: cannot fork RouDi");
    return -1;
  }
  roudi_pid = pid;
  /* RouDi is up once it stays up a moment; a second RouDi on the machine exits at once */
  for (int i = 0; i < 50; i++) {
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      roudi_pid = 0;
      snprintf(roudi_note, sizeof roudi_note,
               "iceoryx: %s exited at start (status %d; is another RouDi running?)", MCA_IOX_ROUDI,
               WIFEXITED(st) ? WEXITSTATUS(st) : -1);
      unlink(roudi_cfg);
      return -1;
    }
    usleep(10000);
  }
  unlink(roudi_cfg); /* read at start only */
  char name[64];
  snprintf(name, sizeof name, "mca-bench-%d", (int)getpid());
  iox_set_loglevel(Iceoryx_LogLevel_Error);
  iox_runtime_init(name);
  roudi_state = 1;
  return 1;
}

/*
 * RouDi's shutdown asks every registered process to terminate (SIGTERM) and
 * waits for it to deregister, which the runtime does only when the process
 * exits. So: ignore that SIGTERM, ask RouDi to stop, and let the exit of this
 * process (its last step; the caller returns right after) complete RouDi's
 * shutdown, which then removes its shared memory.
 */
void bench_iceoryx_stop(void)
{
  if (roudi_pid > 0) {
    signal(SIGTERM, SIG_IGN);
    kill(roudi_pid, SIGTERM);
    roudi_pid = 0;
  }
}

struct iox_dir {
  iox_pub_storage_t pub_st;
  iox_sub_storage_t sub_st;
  iox_pub_t pub;
  iox_sub_t sub;
};
struct ioxq {
  struct iox_dir d[2];
};
struct ioxside {
  struct ioxq *q;
  int side;
};

static int iox_prepare(bench_ctx_t *c)
{
  if (roudi_start() < 0) {
    bench_fail(c, BENCH_NA, "%s", roudi_note);
    return BENCH_NA;
  }
  struct ioxq *q = calloc(1, sizeof *q);
  unsigned n = topic_counter++;
  for (int d = 0; d < 2; d++) {
    char event[64];
    snprintf(event, sizeof event, "s%u-d%d", n, d);
    iox_pub_options_t po;
    iox_pub_options_init(&po);
    po.historyCapacity = 0;
    po.subscriberTooSlowPolicy = ConsumerTooSlowPolicy_WAIT_FOR_CONSUMER;
    q->d[d].pub = iox_pub_init(&q->d[d].pub_st, "mca-bench", "items", event, &po);
    iox_sub_options_t so;
    iox_sub_options_init(&so);
    so.queueCapacity = 256;
    so.historyRequest = 0;
    so.queueFullPolicy = QueueFullPolicy_BLOCK_PRODUCER;
    q->d[d].sub = iox_sub_init(&q->d[d].sub_st, "mca-bench", "items", event, &so);
  }
  /* the subscription is made by RouDi's discovery loop: wait for it */
  for (int i = 0; i < 500; i++) {
    if (iox_sub_get_subscription_state(q->d[0].sub) == SubscribeState_SUBSCRIBED &&
        iox_sub_get_subscription_state(q->d[1].sub) == SubscribeState_SUBSCRIBED) {
      c->priv = q;
      return 0;
    }
    usleep(10000);
  }
  for (int d = 0; d < 2; d++) {
    iox_sub_deinit(q->d[d].sub);
    iox_pub_deinit(q->d[d].pub);
  }
  free(q);
  bench_fail(c, BENCH_NA, "iceoryx: the subscription did not come up within 5 s");
  return BENCH_NA;
}
static void iox_destroy(bench_ctx_t *c)
{
  struct ioxq *q = c->priv;
  for (int d = 0; d < 2; d++) {
    iox_sub_deinit(q->d[d].sub);
    iox_pub_deinit(q->d[d].pub);
  }
  free(q);
}
static int iox_open(bench_ctx_t *c, int side, void **h)
{
  struct ioxside *s = malloc(sizeof *s);
  s->q = c->priv;
  s->side = side;
  *h = s;
  return 0;
}
static void iox_close(bench_ctx_t *c, int side, void *h) { free(h); }
static int iox_send(bench_ctx_t *c, void *h, const void *buf)
{
  struct ioxside *s = h;
  iox_pub_t pub = s->q->d[s->side].pub;
  void *chunk = NULL;
  unsigned k = 0;
  for (;;) {
    enum iox_AllocationResult r = iox_pub_loan_chunk(pub, &chunk, (uint32_t)c->size);
    if (r == AllocationResult_SUCCESS)
      break;
    if (r != AllocationResult_RUNNING_OUT_OF_CHUNKS && r != AllocationResult_TOO_MANY_CHUNKS_ALLOCATED_IN_PARALLEL) {
      bench_fail(c, BENCH_ERR, "iox_pub_loan_chunk: result %d", (int)r);
      return BENCH_ERR;
    }
    bench_relax(&k);
  }
  memcpy(chunk, buf, c->size);
  iox_pub_publish_chunk(pub, chunk);
  return 0;
}
static int iox_recv(bench_ctx_t *c, void *h, void *buf)
{
  struct ioxside *s = h;
  iox_sub_t sub = s->q->d[!s->side].sub;
  const void *chunk = NULL;
  unsigned k = 0;
  for (;;) {
    enum iox_ChunkReceiveResult r = iox_sub_take_chunk(sub, &chunk);
    if (r == ChunkReceiveResult_SUCCESS)
      break;
    if (r != ChunkReceiveResult_NO_CHUNK_AVAILABLE) {
      bench_fail(c, BENCH_ERR, "iox_sub_take_chunk: result %d", (int)r);
      return BENCH_ERR;
    }
    bench_relax(&k);
  }
  memcpy(buf, chunk, c->size);
  iox_sub_release_chunk(sub, chunk);
  return 0;
}
BENCH_BATCH_FROM_ITEM(iox)
const bench_ops_t bench_peer_iceoryx = {"iceoryx", iox_prepare, iox_open, iox_send, iox_recv,
                                        iox_close, iox_destroy, 65536, 0, 0, NULL, NULL, NULL,
                                        iox_send_batch, iox_recv_batch};
#else
const bench_ops_t bench_peer_iceoryx = {
    .name = "iceoryx",
    .unavailable = "iceoryx was not found at build time (install iceoryx and "
                   "libiceoryx-binding-c-dev: scripts/deps.sh)"};
void bench_iceoryx_stop(void) {}
#endif
