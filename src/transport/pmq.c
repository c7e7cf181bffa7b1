/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pmq transport: one POSIX message queue per receiving endpoint.
 *
 * MCAPI priority p (0 highest) travels as mq priority MCAPI_MAX_PRIORITY - p,
 * so "higher priority first, FIFO within a priority" is the kernel's order.
 * Blocking calls wait in mq_timedsend / mq_timedreceive, at most
 * MCX_PMQ_TICK_MS at a time, and re-check the endpoint between waits: closing
 * or unlinking a queue wakes nobody, so this is how a sender blocked on a
 * deleted endpoint learns of it. Non-blocking tries use O_NONBLOCK
 * descriptors, so request.c progresses pmq requests unchanged. The
 * endpoint's state checks, its wait points and the loops that repeat the
 * attempts made here are the runtime's (runtime/msg_pmq.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mcx_err.h"
#include "mcapi.h"
#include "mcx.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_mq.h"
#include "ports/mcx_port_shm.h"
#include "sync/lock.h"
#include "transport/pmq.h"

/* Receives into a smaller buffer go through a scratch buffer of mq_msgsize
 * (mq_receive refuses buffers below it); up to this size it is on the stack. */
#define STACK_SCRATCH 8192u

/* One open queue in this process. Fields are written under its slot's lock;
 * nb and blk are set once and read by holders of a reference. */
typedef struct pmq_q {
  int nb;         /* O_NONBLOCK descriptor: tries, available */
  int blk;        /* blocking descriptor: timed waits (-1 until first needed) */
  uint32_t epoch; /* the endpoint incarnation it belongs to */
  uint32_t refs;  /* the cache's reference (while current) + callers using it */
} pmq_q_t;

typedef struct pmq_slot {
  mcx__mutex_t lock; /* process-private */
  pmq_q_t *q;        /* the current incarnation's queue, or NULL */
} pmq_slot_t;

/* Packet buffers of a receiving side come in chunks of this many, made as
 * the receiver holds more (up to the domain's buffer count, as on shm). */
#define RX_CHUNK 64u

typedef struct pmq_chunk {
  uint8_t *mem;             /* RX_CHUNK buffers of stride bytes, MCAPI_BUF_ALIGN aligned */
  uint8_t held[RX_CHUNK];   /* 1: handed out, not released */
} pmq_chunk_t;

/* The receiving side of a channel in this process (its node receives; any
 * thread of the process may release; the chunks and states under rx_lock;
 * freed at the record's next connection or the close): the packet pool and
 * the scalar push-back. */
typedef struct pmq_rx {
  uint32_t gen;     /* the connection these belong to */
  pmq_chunk_t *chunk; /* nchunks chunks */
  uint32_t stride, nchunks;
  int pb_valid;     /* a scalar of another width, taken out of the queue */
  uint32_t pb_width;
  uint64_t pb_value;
} pmq_rx_t;

struct mcx__pmq {
  char name[96];   /* the partition's name (MCX_PORT_SHM_NAME_MAX), the queues' prefix */
  const mcx_atomic_u32 *debug;
  int consume_wrong_width;
  uint32_t uid, domain_id;
  uint64_t tag; /* the partition's name_tag, copied at attach (names of queues) */
  uint32_t msgsize; /* mq_msgsize of every queue of the domain (= hdr->max_msg, >= 1) */
  uint32_t depth;   /* mq_maxmsg of a new endpoint's queue */
  uint32_t nslots; /* endpoints, then channels */
  uint32_t neps, nchans;
  uint32_t pkt_size; /* mq_msgsize of a packet channel's queue */
  pmq_rx_t *rx;      /* per channel record */
  mcx__mutex_t rx_lock; /* the pools' chunks and buffer states (receiver and releasing threads) */
  mcx_port_mq_sys_t sys;
  pmq_slot_t slot[];
};

#define PMQ_DEBUG(dbg, level, ...)                            \
  do {                                                        \
    if (mcx_load_relaxed(dbg) >= (level))                     \
      mcx_port_log(__VA_ARGS__);                              \
  } while (0)

/* The last limit a pmq call of the process ran into (mcx_pmq_limits). Process
 * memory under its lock, not thread-local: the library's initial-exec
 * thread-local block stays small enough for a dlopen() after start-up. */
static char last_error[192];
static mcx__mutex_t last_error_lock;

/* Frees a receiving side's pool and push-back (caller holds rx_lock or owns p alone). */
static void rx_free(pmq_rx_t *rx)
{
  for (uint32_t i = 0; i < rx->nchunks; i++)
    free(rx->chunk[i].mem);
  free(rx->chunk);
  memset(rx, 0, sizeof *rx);
}

static void limit_hit(const mcx__pmq_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void limit_hit(const mcx__pmq_t *p, const char *fmt, ...)
{
  va_list ap;
  char msg[sizeof last_error];
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  mcx__mutex_lock(&last_error_lock, 0);
  memcpy(last_error, msg, sizeof msg);
  mcx__mutex_unlock(&last_error_lock, 0);
  PMQ_DEBUG(p->debug, 1, "%s", msg);
}

/* Names end in the partition's random tag: another user cannot guess one
 * and create it first (and a queue we open is checked to be ours anyway). */
static void q_name(const mcx__pmq_t *p, uint32_t pid, uint32_t idx, uint32_t epoch, char *out)
{
  snprintf(out, MCX_PORT_MQ_NAME_MAX, "%s-p%u-e%u-g%u-%016llx", p->name, pid, idx, epoch,
           (unsigned long long)p->tag);
}

static void q_unref(pmq_q_t *q)
{
  if (--q->refs == 0) {
    mcx_port_mq_close(q->nb);
    mcx_port_mq_close(q->blk);
    free(q);
  }
}

static pmq_q_t *q_new(int nb, uint32_t epoch)
{
  pmq_q_t *q = calloc(1, sizeof *q);
  if (!q)
    return NULL;
  q->nb = nb;
  q->blk = -1;
  q->epoch = epoch;
  q->refs = 1;
  return q;
}

/* Installs @p q as slot @p idx's current queue (NULL: none); the old one
 * closes when its last user puts it. */
static void q_install(mcx__pmq_t *p, uint32_t idx, pmq_q_t *q)
{
  pmq_slot_t *s = &p->slot[idx];
  mcx__mutex_lock(&s->lock, 0);
  pmq_q_t *old = s->q;
  s->q = q;
  if (old)
    q_unref(old);
  mcx__mutex_unlock(&s->lock, 0);
}

/* A reference to the queue in cache slot @p cslot, incarnation @p epoch,
 * named @p name (built only on a miss), opened on first use; with @p blocking
 * its blocking descriptor too. */
static int q_acquire(mcx__pmq_t *p, uint32_t cslot, uint32_t epoch, int blocking,
                     void (*mk)(const mcx__pmq_t *, const void *, char *), const void *arg,
                     pmq_q_t **out)
{
  pmq_slot_t *s = &p->slot[cslot];
  char name[MCX_PORT_MQ_NAME_MAX];
  int r = MCX_OK;
  mcx__mutex_lock(&s->lock, 0);
  pmq_q_t *q = s->q;
  if (!q || q->epoch != epoch) {
    if (q) { /* a previous incarnation: drop it */
      s->q = NULL;
      q_unref(q);
    }
    int fd;
    mk(p, arg, name);
    if ((r = mcx_port_mq_open(name, 1, &fd)) != MCX_OK)
      goto out;
    if (!(q = q_new(fd, epoch))) {
      mcx_port_mq_close(fd);
      r = MCX_ENOMEM;
      goto out;
    }
    s->q = q;
  }
  if (blocking && q->blk < 0) {
    mk(p, arg, name);
    if ((r = mcx_port_mq_open(name, 0, &q->blk)) != MCX_OK) {
      q->blk = -1;
      goto out;
    }
  }
  q->refs++;
  *out = q;
out:
  mcx__mutex_unlock(&s->lock, 0);
  if (r == MCX_ELIMIT)
    limit_hit(p, "pmq: opening a queue failed: the descriptor limit (RLIMIT_NOFILE) is reached");
  if (r == MCX_EPERM) {
    limit_hit(p, "pmq: refusing queue %s: it is not ours (another owner, or open to others)", name);
    r = MCX_EIO;
  }
  return r;
}

static void ep_name(const mcx__pmq_t *p, const void *arg, char *out)
{
  const mcx__pmq_ep_t *e = arg;
  q_name(p, e->pid, e->idx, e->epoch, out);
}

/* The queue of endpoint @p e. */
static int q_get(mcx__pmq_t *p, const mcx__pmq_ep_t *e, int blocking, pmq_q_t **out)
{
  return q_acquire(p, e->idx, e->epoch, blocking, ep_name, e, out);
}

static void q_put(mcx__pmq_t *p, uint32_t idx, pmq_q_t *q)
{
  pmq_slot_t *s = &p->slot[idx];
  mcx__mutex_lock(&s->lock, 0);
  q_unref(q);
  mcx__mutex_unlock(&s->lock, 0);
}

/* ------------------------------------------------------------ limits */

uint32_t mcx__pmq_payload_limit(uint32_t requested, int explicit_size, const mcx_atomic_u32 *debug)
{
  mcx_port_mq_sys_t sys;
  mcx_port_mq_sys(&sys);
  uint32_t cap = sys.msgsize_max ? sys.msgsize_max : 8192u; /* 8192: the kernel's default */
  const char *why = "/proc/sys/fs/mqueue/msgsize_max";
  if (sys.privileged && explicit_size) {
    cap = MCX_PORT_MQ_HARD_MSGSIZEMAX;
    why = "the kernel's hard limit HARD_MSGSIZEMAX";
  }
  if (requested > cap) {
    PMQ_DEBUG(debug, 1, "pmq: messages are limited to %u bytes (asked for %u) by %s", cap, requested, why);
    return cap;
  }
  return requested ? requested : 1;
}

/* Why a queue of @p depth messages could not be made, as a status and a message. */
static int create_failed(const mcx__pmq_t *p, int r, const char *name, uint32_t depth,
                         uint32_t msgsize)
{
  unsigned long long bytes = mcx_port_mq_bytes(depth, msgsize);
  switch (r) {
  case MCX_ENOMEM:
    limit_hit(p, "pmq: cannot create %s: /proc/sys/fs/mqueue/queues_max (%u queues) is reached", name,
              p->sys.queues_max);
    return MCX_ENOMEM;
  case MCX_EINVAL:
    limit_hit(p, "pmq: cannot create %s: %u messages x %u bytes exceed /proc/sys/fs/mqueue/msg_max "
              "(%u) or msgsize_max (%u)",
              name, depth, msgsize, p->sys.msg_max, p->sys.msgsize_max);
    return MCX_ELIMIT;
  case MCX_ELIMIT:
    limit_hit(p, "pmq: cannot create %s (%llu bytes): RLIMIT_MSGQUEUE (%llu bytes per user) is used "
              "up, or a descriptor limit is reached",
              name, bytes, (unsigned long long)p->sys.rlimit);
    return MCX_ELIMIT;
  case MCX_EPERM:
  case MCX_EEXIST:
    /* Only another user's object can stand in our way: ours were removed. */
    limit_hit(p, "pmq: cannot create %s: a queue of that name exists and belongs to another user "
              "(left alone)",
              name);
    return MCX_EIO;
  default:
    limit_hit(p, "pmq: cannot create %s: the system refused (%d)", name, r);
    return r;
  }
}

/* Checks a queue size against the limits before asking the kernel, so the
 * message names the limit precisely. */
static int precheck(const mcx__pmq_t *p, const char *name, uint32_t depth, uint32_t msgsize)
{
  if (!p->sys.privileged && p->sys.msg_max && depth > p->sys.msg_max) {
    limit_hit(p, "pmq: %s: %u messages per queue exceed /proc/sys/fs/mqueue/msg_max (%u)", name, depth,
              p->sys.msg_max);
    return MCX_ELIMIT;
  }
  if (depth > MCX_PORT_MQ_HARD_MSGMAX) {
    limit_hit(p, "pmq: %s: %u messages per queue exceed the kernel's HARD_MSGMAX (%u)", name, depth,
              MCX_PORT_MQ_HARD_MSGMAX);
    return MCX_ELIMIT;
  }
  unsigned long long bytes = mcx_port_mq_bytes(depth, msgsize);
  if (bytes > p->sys.rlimit) {
    limit_hit(p, "pmq: %s: %u messages x %u bytes need %llu bytes, above RLIMIT_MSGQUEUE (%llu bytes "
              "per user)",
              name, depth, msgsize, bytes, (unsigned long long)p->sys.rlimit);
    return MCX_ELIMIT;
  }
  return MCX_OK;
}

/* ------------------------------------------------------------ domain */

struct sweep {
  size_t plen;
  uint32_t only_pid; /* 0: every dead creator */
  unsigned removed;
};

static void sweep_one(const char *name, void *arg)
{
  struct sweep *s = arg;
  unsigned long pid = strtoul(name + s->plen, NULL, 10);
  if (s->only_pid ? pid != s->only_pid : (pid == 0 || mcx_port_pid_alive((uint32_t)pid)))
    return;
  char path[MCX_PORT_MQ_NAME_MAX];
  snprintf(path, sizeof path, "/%s", name);
  if (mcx_port_mq_unlink(path) == MCX_OK)
    s->removed++;
}

/* Unlinks the domain's queues whose creator is dead (only_pid 0) or is @p only_pid. */
static void sweep(const mcx__pmq_t *p, uint32_t only_pid)
{
  char prefix[128];
  snprintf(prefix, sizeof prefix, "%s-p", p->name + 1); /* the partition's name, without '/' */
  struct sweep s = {strlen(prefix), only_pid, 0};
  if (mcx_port_mq_list(prefix, sweep_one, &s) != MCX_OK) {
    PMQ_DEBUG(p->debug, 1, "pmq: /dev/mqueue is not mounted: queues of dead processes cannot be found "
                 "(mount -t mqueue none /dev/mqueue)");
    return;
  }
  if (s.removed)
    PMQ_DEBUG(p->debug, 1, "pmq: domain %u: removed %u queue(s) of %s", p->domain_id, s.removed,
              only_pid ? "this process" : "dead processes");
}

/* Once per process, whatever the debug level: the system limits that make
 * this transport hold less than the shared-memory one (the MCAPI sizes in
 * mca_config.h and the domain's queue depth @p want), each with what lifts it.
 * A program written for those sizes (a full queue at MCAPI_MAX_QUEUE_ELEMENTS
 * messages, MCAPI_MAX_MSG_SIZE bytes) then knows why it sees MEM_LIMIT or
 * MSG_LIMIT earlier. */
static void say_limits(const mcx__pmq_t *p, uint32_t want)
{
  static mcx_atomic_u32 said;
  char line[512];
  size_t n = 0;
  uint32_t size = MCAPI_MAX_MSG_SIZE > MCAPI_MAX_PKT_SIZE ? MCAPI_MAX_MSG_SIZE : MCAPI_MAX_PKT_SIZE;
  if (p->depth < want && p->sys.msg_max && p->sys.msg_max < want)
    n += (size_t)snprintf(line + n, sizeof line - n,
                          "; queues hold %u messages, not %u: fs.mqueue.msg_max is %u "
                          "(sysctl -w fs.mqueue.msg_max=%u lifts it)",
                          p->depth, want, p->sys.msg_max, want);
  else if (p->depth < want)
    n += (size_t)snprintf(line + n, sizeof line - n,
                          "; queues hold %u messages, not %u: RLIMIT_MSGQUEUE is %llu bytes "
                          "(ulimit -q %llu lifts it)",
                          p->depth, want, (unsigned long long)p->sys.rlimit,
                          (unsigned long long)mcx_port_mq_bytes(want, p->msgsize));
  if (p->sys.msgsize_max && p->sys.msgsize_max < size)
    n += (size_t)snprintf(line + n, sizeof line - n,
                          "; messages and packets are limited to %u bytes, not %u: "
                          "fs.mqueue.msgsize_max is %u (sysctl -w fs.mqueue.msgsize_max=%u lifts it)",
                          p->sys.msgsize_max, size, p->sys.msgsize_max, size);
  if (p->sys.queues_max && p->sys.queues_max < MCAPI_MAX_ENDPOINTS)
    n += (size_t)snprintf(line + n, sizeof line - n,
                          "; at most %u queues in the system, fewer than a node's %u endpoints: "
                          "fs.mqueue.queues_max is %u (sysctl -w fs.mqueue.queues_max=%u lifts it)",
                          p->sys.queues_max, MCAPI_MAX_ENDPOINTS, p->sys.queues_max,
                          MCAPI_MAX_ENDPOINTS);
  /* Acq_rel, no partner: the flag publishes nothing, it only picks the one
   * caller that prints. */
  if (n && n < sizeof line && mcx_exchange_acq_rel(&said, 1) == 0)
    mcx_port_log("pmq: the system's queue limits are below the MCAPI sizes%s", line);
}

int mcx__pmq_open(const mcx__pmq_cfg_t *cfg, mcx__pmq_t **out)
{
  uint32_t n = cfg->n_eps + cfg->n_chans;
  mcx__pmq_t *p = calloc(1, sizeof *p + (size_t)n * sizeof(pmq_slot_t));
  if (!p)
    return MCX_ENOMEM;
  p->neps = cfg->n_eps;
  p->nchans = cfg->n_chans;
  if (p->nchans && !(p->rx = calloc(p->nchans, sizeof *p->rx))) {
    free(p);
    return MCX_ENOMEM;
  }
  if (mcx_port_mq_sys(&p->sys) == MCX_ENOSYS) { /* built without message queues */
    free(p->rx);
    free(p);
    return MCX_ENOSYS;
  }
  snprintf(p->name, sizeof p->name, "%s", cfg->name);
  p->debug = cfg->debug;
  p->consume_wrong_width = cfg->consume_wrong_width;
  p->uid = mcx_port_uid();
  p->domain_id = cfg->domain_id;
  p->tag = cfg->tag;
  p->nslots = n;
  p->msgsize = cfg->max_msg ? cfg->max_msg : 1;
  p->pkt_size = MCAPI_MAX_PKT_SIZE ? MCAPI_MAX_PKT_SIZE : 1;
  if (p->sys.msgsize_max && p->pkt_size > p->sys.msgsize_max)
    p->pkt_size = p->sys.msgsize_max; /* packets are bounded like messages */
  /* Default depth: the partition's queue depth, within msg_max (the
   * administrator's per-queue default, honoured by privileged processes too),
   * a power of two as NUM_RECV_BUFFERS requires, and within RLIMIT_MSGQUEUE. */
  uint32_t depth = cfg->qcap;
  if (p->sys.msg_max && depth > p->sys.msg_max)
    depth = p->sys.msg_max;
  while (depth & (depth - 1))
    depth &= depth - 1;
  while (depth > 2 && mcx_port_mq_bytes(depth, p->msgsize) > p->sys.rlimit)
    depth /= 2;
  p->depth = depth ? depth : 1;
  *out = p;
  say_limits(p, cfg->qcap);
  sweep(p, 0);
  PMQ_DEBUG(p->debug, 1, "pmq: domain %u: queues of %u messages x %u bytes (%llu bytes of "
                         "RLIMIT_MSGQUEUE %llu each)",
            p->domain_id, p->depth, p->msgsize,
            (unsigned long long)mcx_port_mq_bytes(p->depth, p->msgsize),
            (unsigned long long)p->sys.rlimit);
  return MCX_OK;
}

void mcx__pmq_close(mcx__pmq_t *p, int last_in_domain)
{
  if (!p)
    return;
  for (uint32_t i = 0; i < p->nslots; i++)
    if (p->slot[i].q)
      q_install(p, i, NULL);
  /* Every endpoint was deleted (and its queue unlinked) by its node's
   * finalize, or by the dead-node sweep; this catches what a failed call or
   * a crash may have left: our own queues, and when we are the domain's last
   * node, those of dead processes too. Live processes' queues are theirs
   * (one may be joining a fresh partition of the same domain right now). */
  sweep(p, mcx_port_pid());
  if (last_in_domain)
    sweep(p, 0);
  for (uint32_t i = 0; i < p->nchans; i++)
    rx_free(&p->rx[i]);
  free(p->rx);
  free(p);
}

void mcx__pmq_forget(mcx__pmq_t *p)
{
  if (!p)
    return;
  /* A fork child's copy: no thread of the child uses it and the parent's
   * threads may have held the slot locks at the fork, so no locking. */
  for (uint32_t i = 0; i < p->nslots; i++) {
    pmq_q_t *q = p->slot[i].q;
    if (q) {
      mcx_port_mq_close(q->nb);
      mcx_port_mq_close(q->blk);
      free(q);
    }
  }
  for (uint32_t i = 0; i < p->nchans; i++)
    rx_free(&p->rx[i]);
  free(p->rx);
  free(p);
}

/* ------------------------------------------------------------ endpoints */

int mcx__pmq_ep_create(mcx__pmq_t *p, uint32_t idx, uint32_t epoch, int defer, uint32_t *depth)
{
  char name[MCX_PORT_MQ_NAME_MAX];
  q_name(p, mcx_port_pid(), idx, epoch, name);
  int fd;
  int r = precheck(p, name, p->depth, p->msgsize);
  if (r)
    return r;
  if (defer) {
    /* The first use makes it (ep_acquire). A leftover of the same name (a
     * dead process with our pid) goes now: no sender knows the endpoint yet. */
    mcx_port_mq_unlink(name);
    q_install(p, idx, NULL);
    *depth = p->depth;
    return MCX_OK;
  }
  r = mcx_port_mq_create(name, p->depth, p->msgsize, &fd);
  /* A leftover of the same name (a dead process with our pid, where
   * /dev/mqueue could not be listed) is replaced once. */
  if (r == MCX_EEXIST && (r = mcx_port_mq_unlink(name)) == MCX_OK)
    r = mcx_port_mq_create(name, p->depth, p->msgsize, &fd);
  if (r)
    return create_failed(p, r, name, p->depth, p->msgsize);
  pmq_q_t *q = q_new(fd, epoch);
  if (!q) {
    mcx_port_mq_close(fd);
    mcx_port_mq_unlink(name);
    return MCX_ENOMEM;
  }
  q_install(p, idx, q);
  *depth = p->depth;
  return MCX_OK;
}

/* The queue of endpoint @p e, made again if it was parked (an endpoint
 * connected to a channel gives its empty queue up: mcx__msg_pmq_park) or
 * re-sized: by whichever process of the owner's user gets there first (exclusively; a
 * loser of that race opens the winner's), named with the owner's pid so
 * the owner's cleanup covers it. *made tells the caller it was this call. */
static int ep_acquire(mcx__pmq_t *p, const mcx__pmq_ep_t *e, int blocking, pmq_q_t **out, int *made)
{
  *made = 0;
  int r = q_get(p, e, blocking, out);
  if (r != MCX_ENOENT)
    return r;
  char name[MCX_PORT_MQ_NAME_MAX];
  q_name(p, e->pid, e->idx, e->epoch, name);
  uint32_t depth = e->depth ? e->depth : p->depth;
  int fd = -1;
  if ((r = precheck(p, name, depth, p->msgsize)) != MCX_OK)
    return r;
  r = mcx_port_mq_create(name, depth, p->msgsize, &fd);
  if (r == MCX_OK) {
    mcx_port_mq_close(fd); /* q_acquire opens and checks it as any other */
    *made = 1;
  } else if (r != MCX_EEXIST) {
    return create_failed(p, r, name, depth, p->msgsize);
  }
  return q_get(p, e, blocking, out);
}

uint32_t mcx__pmq_ep_delete(mcx__pmq_t *p, const mcx__pmq_ep_t *e)
{
  char name[MCX_PORT_MQ_NAME_MAX];
  uint32_t dropped = 0;
  pmq_slot_t *s = &p->slot[e->idx];
  mcx__mutex_lock(&s->lock, 0);
  if (s->q && s->q->epoch == e->epoch)
    mcx_port_mq_count(s->q->nb, &dropped);
  mcx__mutex_unlock(&s->lock, 0);
  q_name(p, e->pid, e->idx, e->epoch, name);
  mcx_port_mq_unlink(name);
  q_install(p, e->idx, NULL);
  return dropped;
}

int mcx__pmq_ep_requeue(mcx__pmq_t *p, const mcx__pmq_ep_t *e, uint32_t next, uint32_t depth,
                        int make)
{
  char name[MCX_PORT_MQ_NAME_MAX], old_name[MCX_PORT_MQ_NAME_MAX];
  q_name(p, e->pid, e->idx, next, name);
  int r = make ? precheck(p, name, depth, p->msgsize) : MCX_OK;
  if (r)
    return r;
  uint32_t queued = 0;
  pmq_q_t *old;
  r = q_get(p, e, 0, &old);
  if (r == MCX_OK) {
    if (mcx_port_mq_count(old->nb, &queued) != MCX_OK || queued)
      r = MCX_EBUSY;
    q_put(p, e->idx, old);
  } else if (r == MCX_ENOENT) {
    r = MCX_OK; /* parked: no queue, nothing queued */
  }
  if (r)
    return r;
  pmq_q_t *q = NULL;
  if (make) {
    int fd;
    r = mcx_port_mq_create(name, depth, p->msgsize, &fd);
    if (r == MCX_EEXIST && (r = mcx_port_mq_unlink(name)) == MCX_OK) /* a dead process's */
      r = mcx_port_mq_create(name, depth, p->msgsize, &fd);
    if (r)
      return create_failed(p, r, name, depth, p->msgsize);
    if (!(q = q_new(fd, next))) {
      mcx_port_mq_close(fd);
      mcx_port_mq_unlink(name);
      return MCX_ENOMEM;
    }
  }
  /* Empty and no sender inside (the caller's handshake). Parked (!make):
   * the next incarnation's queue is made by its first use (ep_acquire). */
  q_name(p, e->pid, e->idx, e->epoch, old_name);
  mcx_port_mq_unlink(old_name);
  q_install(p, e->idx, q);
  return MCX_OK;
}

/* ------------------------------------------------------------ messages */

uint64_t mcx__pmq_tick_deadline(uint64_t deadline)
{
  uint64_t t = mcx_port_now_ns() + (uint64_t)MCX_PMQ_TICK_MS * 1000000u;
  return t < deadline ? t : deadline;
}

int mcx__pmq_ep_send(mcx__pmq_t *p, const mcx__pmq_ep_t *e, const void *buf, size_t size,
                     uint32_t prio, uint64_t dl, int *made)
{
  pmq_q_t *q;
  int r = ep_acquire(p, e, dl != 0, &q, made);
  if (r == MCX_OK) {
    r = mcx_port_mq_send(dl ? q->blk : q->nb, buf, size, MCAPI_MAX_PRIORITY - prio, dl);
    q_put(p, e->idx, q);
  } else if (r == MCX_ENOENT) {
    r = MCX_ECLOSED; /* unlinked by a delete after the caller's state check */
  }
  return r;
}

int mcx__pmq_ep_recv(mcx__pmq_t *p, const mcx__pmq_ep_t *e, void *buf, size_t cap, size_t *size,
                     uint64_t dl)
{
  pmq_q_t *q;
  int made;
  int r = ep_acquire(p, e, dl != 0, &q, &made);
  if (r)
    return r == MCX_ENOENT ? MCX_ECLOSED : r;
  int fd = dl ? q->blk : q->nb;
  size_t msgsize = p->msgsize, len = 0;
  unsigned prio;
  if (cap >= msgsize) {
    r = mcx_port_mq_recv(fd, buf, cap, &len, &prio, dl);
  } else {
    unsigned char stack[STACK_SCRATCH];
    unsigned char *tmp = msgsize <= sizeof stack ? stack : malloc(msgsize);
    if (!tmp) {
      r = MCX_ENOMEM;
    } else {
      r = mcx_port_mq_recv(fd, tmp, msgsize, &len, &prio, dl);
      if (r == MCX_OK)
        memcpy(buf, tmp, len < cap ? len : cap);
      if (tmp != stack)
        free(tmp);
    }
  }
  q_put(p, e->idx, q);
  if (r != MCX_OK)
    return r;
  *size = len;
  return len > cap ? MCX_ETRUNC : MCX_OK;
}

int mcx__pmq_ep_count(mcx__pmq_t *p, const mcx__pmq_ep_t *e, uint32_t *count)
{
  pmq_q_t *q;
  int r = q_get(p, e, 0, &q);
  if (r == MCX_ENOENT) { /* not made yet: nothing was sent */
    *count = 0;
    return MCX_OK;
  }
  if (r)
    return r;
  r = mcx_port_mq_count(q->nb, count);
  q_put(p, e->idx, q);
  return r;
}
/* ------------------------------------------------------------ channels */

static void chan_name(const mcx__pmq_t *p, const void *arg, char *out)
{
  const mcx__pmq_chan_t *c = arg;
  snprintf(out, MCX_PORT_MQ_NAME_MAX, "%s-p%u-c%u-g%u-%016llx", p->name, c->pid, c->idx, c->gen,
           (unsigned long long)p->tag);
}

static uint32_t chan_msgsize(const mcx__pmq_t *p, const mcx__pmq_chan_t *c)
{
  return c->type == MCAPI_PKT_CHAN ? p->pkt_size : 16u; /* a scalar: width byte + 8 bytes */
}

int mcx__pmq_chan_create(mcx__pmq_t *p, const mcx__pmq_chan_t *c)
{
  uint32_t cslot = p->neps + c->idx;
  pmq_slot_t *s = &p->slot[cslot];
  char name[MCX_PORT_MQ_NAME_MAX];
  chan_name(p, c, name);
  uint32_t depth = c->depth < p->depth ? c->depth : p->depth, size = chan_msgsize(p, c);
  if (!depth)
    depth = 1;
  /* Exactly one side makes the queue, exclusively: the receiving side's
   * process. Under the slot lock, so its threads do not race each other:
   * EEXIST is then never "the peer made it". */
  mcx__mutex_lock(&s->lock, 0);
  int fd = -1, r = MCX_OK;
  if (s->q && s->q->epoch == c->gen)
    goto out; /* made by an earlier attempt of this open */
  if ((r = precheck(p, name, depth, size)) != MCX_OK)
    goto out;
  r = mcx_port_mq_create(name, depth, size, &fd);
  if (r == MCX_EEXIST && (r = mcx_port_mq_unlink(name)) == MCX_OK) /* a dead process's, ours */
    r = mcx_port_mq_create(name, depth, size, &fd);
  if (r) {
    r = create_failed(p, r, name, depth, size);
    goto out;
  }
  pmq_q_t *q = q_new(fd, c->gen);
  if (!q) {
    mcx_port_mq_close(fd);
    mcx_port_mq_unlink(name);
    r = MCX_ENOMEM;
    goto out;
  }
  pmq_q_t *old = s->q;
  s->q = q;
  if (old)
    q_unref(old);
out:
  mcx__mutex_unlock(&s->lock, 0);
  return r;
}

void mcx__pmq_chan_destroy(mcx__pmq_t *p, const mcx__pmq_chan_t *c, int keep_pool)
{
  char name[MCX_PORT_MQ_NAME_MAX];
  chan_name(p, c, name);
  mcx_port_mq_unlink(name);
  q_install(p, p->neps + c->idx, NULL);
  pmq_rx_t *rx = &p->rx[c->idx];
  mcx__mutex_lock(&p->rx_lock, 0);
  if (!keep_pool || rx->gen != c->gen) {
    rx_free(rx);
  } else {
    rx->pb_valid = 0; /* the pool stays for the held buffers' releases */
  }
  mcx__mutex_unlock(&p->rx_lock, 0);
}

/* The connection's queue. The receiving side's process makes it (its open
 * does; a first use there too); elsewhere a missing queue means the
 * receiver has not opened yet: EAGAIN, as a full queue (the state machine
 * guarantees no use after tear-down). */
static int chan_acquire(mcx__pmq_t *p, const mcx__pmq_chan_t *c, pmq_q_t **q)
{
  uint32_t cslot = p->neps + c->idx;
  int r = q_acquire(p, cslot, c->gen, 0, chan_name, c, q);
  if (r == MCX_ENOENT && c->pid != mcx_port_pid())
    return MCX_EAGAIN;
  if (r == MCX_ENOENT && (r = mcx__pmq_chan_create(p, c)) == MCX_OK)
    r = q_acquire(p, cslot, c->gen, 0, chan_name, c, q);
  return r;
}

int mcx__pmq_chan_put(mcx__pmq_t *p, const mcx__pmq_chan_t *c, const void *buf, size_t len)
{
  pmq_q_t *q;
  uint32_t cslot = p->neps + c->idx;
  int r = chan_acquire(p, c, &q);
  if (r)
    return r;
  r = mcx_port_mq_send(q->nb, buf, len, 0, 0);
  q_put(p, cslot, q);
  return r;
}

/* One receive of the raw message; the caller's buffer holds mq_msgsize. */
static int chan_get(mcx__pmq_t *p, const mcx__pmq_chan_t *c, void *buf, size_t cap,
                    size_t *len)
{
  pmq_q_t *q;
  uint32_t cslot = p->neps + c->idx;
  int r = chan_acquire(p, c, &q);
  if (r)
    return r;
  unsigned prio;
  r = mcx_port_mq_recv(q->nb, buf, cap, len, &prio, 0);
  q_put(p, cslot, q);
  return r;
}

static pmq_rx_t *rx_of(mcx__pmq_t *p, const mcx__pmq_chan_t *c)
{
  pmq_rx_t *rx = &p->rx[c->idx];
  if (rx->gen != c->gen) { /* a new connection on this record */
    mcx__mutex_lock(&p->rx_lock, 0);
    rx_free(rx);
    rx->gen = c->gen;
    mcx__mutex_unlock(&p->rx_lock, 0);
  }
  return rx;
}

int mcx__pmq_scl_get(mcx__pmq_t *p, const mcx__pmq_chan_t *c, uint32_t width, uint64_t *value)
{
  pmq_rx_t *rx = rx_of(p, c);
  if (!rx->pb_valid) {
    unsigned char m[16];
    size_t len;
    int r = chan_get(p, c, m, sizeof m, &len);
    if (r)
      return r;
    if (len != 9)
      return MCX_EIO;
    rx->pb_width = m[0];
    memcpy(&rx->pb_value, m + 1, 8);
    rx->pb_valid = 1;
  }
  if (rx->pb_width != width) {
    if (p->consume_wrong_width) /* MCX_COMPAT=mca-2.0.3 */
      rx->pb_valid = 0; /* the reference consumes it */
    return MCX_EWIDTH; /* spec: kept, a receive of the right width gets it */
  }
  rx->pb_valid = 0;
  *value = rx->pb_value;
  return MCX_OK;
}

int mcx__pmq_scl_put(mcx__pmq_t *p, const mcx__pmq_chan_t *c, uint32_t width, uint64_t value)
{
  unsigned char m[9];
  m[0] = (unsigned char)width;
  memcpy(m + 1, &value, 8);
  return mcx__pmq_chan_put(p, c, m, sizeof m);
}

size_t mcx__pmq_pkt_size(const mcx__pmq_t *p) { return p->pkt_size; }

/* A free buffer of the pool, growing it by a chunk if every buffer is held
 * and fewer than @p limit exist (rx_lock held). */
static int rx_free_buffer(const mcx__pmq_t *p, pmq_rx_t *rx, uint32_t limit, uint32_t *at)
{
  for (uint32_t i = 0; i < rx->nchunks; i++)
    for (uint32_t k = 0; k < RX_CHUNK; k++)
      if (!rx->chunk[i].held[k] && i * RX_CHUNK + k < limit) {
        *at = i * RX_CHUNK + k;
        return MCX_OK;
      }
  if ((uint64_t)rx->nchunks * RX_CHUNK >= limit)
    return MCX_ENOMEM; /* the receiver holds every buffer it may */
  size_t stride = (p->pkt_size + MCAPI_BUF_ALIGN - 1) / MCAPI_BUF_ALIGN * MCAPI_BUF_ALIGN;
  pmq_chunk_t *more = realloc(rx->chunk, (rx->nchunks + 1) * sizeof *more);
  if (!more)
    return MCX_ENOMEM;
  rx->chunk = more;
  uint8_t *mem = aligned_alloc(MCAPI_BUF_ALIGN, stride * RX_CHUNK);
  if (!mem)
    return MCX_ENOMEM;
  /* Zeros past a packet, as in the shm pool (a zeroed partition): programs
   * send strings without their NUL and read them back with strcmp (the
   * reference's pkt3); mca-2.0.3 zeroes released buffers too. */
  memset(mem, 0, stride * RX_CHUNK);
  memset(&rx->chunk[rx->nchunks], 0, sizeof *more);
  rx->chunk[rx->nchunks].mem = mem;
  rx->stride = (uint32_t)stride;
  *at = rx->nchunks++ * RX_CHUNK;
  return MCX_OK;
}

int mcx__pmq_pkt_get(mcx__pmq_t *p, const mcx__pmq_chan_t *c, uint32_t limit, void **out,
                     size_t *len)
{
  pmq_rx_t *rx = rx_of(p, c);
  uint32_t at;
  mcx__mutex_lock(&p->rx_lock, 0);
  int r = rx_free_buffer(p, rx, limit, &at);
  mcx__mutex_unlock(&p->rx_lock, 0);
  if (r)
    return r;
  /* Only this (receiving) thread hands buffers out: the free one stays free
   * while it is filled, and the chunk array is not moved but by us. */
  pmq_chunk_t *ck = &rx->chunk[at / RX_CHUNK];
  uint8_t *buf = ck->mem + (size_t)(at % RX_CHUNK) * rx->stride;
  r = chan_get(p, c, buf, rx->stride, len);
  if (r != MCX_OK)
    return r;
  mcx__mutex_lock(&p->rx_lock, 0);
  ck->held[at % RX_CHUNK] = 1;
  mcx__mutex_unlock(&p->rx_lock, 0);
  *out = buf;
  return MCX_OK;
}

/* The record and the buffer a pointer handed out by mcx__pmq_pkt_get is
 * (rx_lock held). */
static pmq_chunk_t *rx_locate(mcx__pmq_t *p, const void *ptr, uint32_t *idx, uint32_t *k)
{
  const uint8_t *u = ptr;
  for (uint32_t i = 0; u && i < p->nchans; i++) {
    const pmq_rx_t *rx = &p->rx[i];
    for (uint32_t j = 0; j < rx->nchunks; j++) {
      const uint8_t *m = rx->chunk[j].mem;
      if (u >= m && u < m + (size_t)RX_CHUNK * rx->stride) {
        size_t off = (size_t)(u - m);
        if (off % rx->stride)
          return NULL; /* not the start of a buffer */
        *idx = i;
        *k = (uint32_t)(off / rx->stride);
        return &rx->chunk[j];
      }
    }
  }
  return NULL;
}

int mcx__pmq_pkt_release(mcx__pmq_t *p, const void *ptr, uint32_t *idx, int test_only)
{
  uint32_t k;
  mcx__mutex_lock(&p->rx_lock, 0); /* other channels' pools change under their receivers */
  pmq_chunk_t *ck = rx_locate(p, ptr, idx, &k);
  int r = MCX_EBADBUF;
  if (ck && test_only) {
    r = ck->held[k] ? 0 : 1;
  } else if (ck && ck->held[k]) { /* only a held buffer is released, once */
    ck->held[k] = 0;
    r = MCX_OK;
  }
  mcx__mutex_unlock(&p->rx_lock, 0);
  return r;
}

int mcx__pmq_chan_count(mcx__pmq_t *p, const mcx__pmq_chan_t *c, uint32_t *count)
{
  pmq_q_t *q;
  uint32_t cslot = p->neps + c->idx;
  int r = chan_acquire(p, c, &q);
  if (r)
    return r;
  r = mcx_port_mq_count(q->nb, count);
  q_put(p, cslot, q);
  if (r == MCX_OK && c->type == MCAPI_SCL_CHAN && rx_of(p, c)->pb_valid)
    (*count)++;
  return r;
}

/* ------------------------------------------------------------ report */

void mcx__pmq_limits(const mcx__pmq_t *p, struct mcx_pmq_limits *out)
{
  mcx_port_mq_sys_t sys;
  mcx_port_mq_sys(&sys);
  memset(out, 0, sizeof *out);
  out->msg_max = sys.msg_max;
  out->msgsize_max = sys.msgsize_max;
  out->queues_max = sys.queues_max;
  out->rlimit = sys.rlimit == UINT64_MAX ? ~0ULL : (unsigned long long)sys.rlimit;
  out->privileged = sys.privileged;
  out->listable = sys.listable;
  if (p) {
    out->max_payload = p->msgsize;
    out->max_packet = p->pkt_size;
    out->default_depth = p->depth;
    out->queue_bytes = mcx_port_mq_bytes(p->depth, p->msgsize);
  }
  mcx__mutex_lock(&last_error_lock, 0);
  snprintf(out->last_error, sizeof out->last_error, "%s", last_error);
  mcx__mutex_unlock(&last_error_lock, 0);
}
