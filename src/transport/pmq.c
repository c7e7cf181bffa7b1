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
 * descriptors, so request.c progresses pmq requests unchanged; the wait
 * points of the endpoint are notified as the ring path does, for requests
 * that sleep in mcapi_wait.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcapi.h"
#include "mcx.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_mq.h"
#include "ports/mcx_port_shm.h"
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

/* The receiving side of a channel in this process (written by that side's
 * node only, freed at tear-down): the packet pool and the scalar push-back. */
typedef struct pmq_rx {
  uint32_t gen;     /* the connection these belong to */
  uint8_t *pool;    /* nbuf buffers of stride bytes, MCAPI_BUF_ALIGN aligned */
  uint32_t stride, nbuf;
  int pb_valid;     /* a scalar of another width, taken out of the queue */
  uint32_t pb_width;
  uint64_t pb_value;
} pmq_rx_t;

typedef struct mcx__pmq {
  uint32_t uid, domain_id;
  uint64_t tag; /* the partition's name_tag, copied at attach (names of queues) */
  uint32_t msgsize; /* mq_msgsize of every queue of the domain (= hdr->max_msg, >= 1) */
  uint32_t depth;   /* mq_maxmsg of a new endpoint's queue */
  uint32_t nslots; /* endpoints, then channels */
  uint32_t neps, nchans;
  uint32_t pkt_size; /* mq_msgsize of a packet channel's queue */
  pmq_rx_t *rx;      /* per channel record */
  mcx__mutex_t rx_lock; /* pool allocation and release's pointer look-up (any thread) */
  mcx_port_mq_sys_t sys;
  pmq_slot_t slot[];
} mcx__pmq_t;

static _Thread_local char last_error[192];

static void limit_hit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void limit_hit(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  MCX_DEBUG(1, "%s", last_error);
}

/* Names end in the partition's random tag: another user cannot guess one
 * and create it first (and a queue we open is checked to be ours anyway). */
static void q_name(const mcx__domain_t *d, uint32_t pid, uint32_t idx, uint32_t epoch, char *out)
{
  snprintf(out, MCX_PORT_MQ_NAME_MAX, "%s-p%u-e%u-g%u-%016llx", d->name, pid, idx, epoch,
           (unsigned long long)d->pmq->tag);
}

/* The pid of the process that created endpoint @p e's queue: its owner node's.
 * Stable while the endpoint is active (a node deletes its endpoints before
 * its table entry is freed). */
static uint32_t owner_pid(const mcx__domain_t *d, const mcx__endpoint_t *e)
{
  return mcx_load_relaxed(&mcx__nodes(d)[mcx_load_relaxed(&e->owner_slot)].pid);
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
static void q_install(mcx__domain_t *d, uint32_t idx, pmq_q_t *q)
{
  pmq_slot_t *s = &d->pmq->slot[idx];
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
static int q_acquire(mcx__domain_t *d, uint32_t cslot, uint32_t epoch, int blocking,
                     void (*mk)(const mcx__domain_t *, const void *, char *), const void *arg,
                     pmq_q_t **out)
{
  pmq_slot_t *s = &d->pmq->slot[cslot];
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
    mk(d, arg, name);
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
    mk(d, arg, name);
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
    limit_hit("pmq: opening a queue failed: the descriptor limit (RLIMIT_NOFILE) is reached");
  if (r == MCX_EPERM) {
    limit_hit("pmq: refusing queue %s: it is not ours (another owner, or open to others)", name);
    r = MCX_EIO;
  }
  return r;
}

struct ep_ref {
  const mcx__endpoint_t *e;
  uint32_t idx, epoch;
};

static void ep_name(const mcx__domain_t *d, const void *arg, char *out)
{
  const struct ep_ref *r = arg;
  q_name(d, owner_pid(d, r->e), r->idx, r->epoch, out);
}

/* The queue of endpoint slot @p idx, incarnation @p epoch. */
static int q_get(mcx__domain_t *d, const mcx__endpoint_t *e, uint32_t idx, uint32_t epoch,
                 int blocking, pmq_q_t **out)
{
  struct ep_ref r = {e, idx, epoch};
  return q_acquire(d, idx, epoch, blocking, ep_name, &r, out);
}

static void q_put(mcx__domain_t *d, uint32_t idx, pmq_q_t *q)
{
  pmq_slot_t *s = &d->pmq->slot[idx];
  mcx__mutex_lock(&s->lock, 0);
  q_unref(q);
  mcx__mutex_unlock(&s->lock, 0);
}

/* ------------------------------------------------------------ limits */

uint32_t mcx__pmq_payload_limit(uint32_t requested, int explicit_size)
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
    MCX_DEBUG(1, "pmq: messages are limited to %u bytes (asked for %u) by %s", cap, requested, why);
    return cap;
  }
  return requested ? requested : 1;
}

/* Why a queue of @p depth messages could not be made, as a status and a message. */
static int create_failed(const mcx__domain_t *d, int r, const char *name, uint32_t depth,
                         uint32_t msgsize)
{
  const mcx__pmq_t *p = d->pmq;
  unsigned long long bytes = mcx_port_mq_bytes(depth, msgsize);
  switch (r) {
  case MCX_ENOMEM:
    limit_hit("pmq: cannot create %s: /proc/sys/fs/mqueue/queues_max (%u queues) is reached", name,
              p->sys.queues_max);
    return MCX_ENOMEM;
  case MCX_EINVAL:
    limit_hit("pmq: cannot create %s: %u messages x %u bytes exceed /proc/sys/fs/mqueue/msg_max "
              "(%u) or msgsize_max (%u)",
              name, depth, msgsize, p->sys.msg_max, p->sys.msgsize_max);
    return MCX_ELIMIT;
  case MCX_ELIMIT:
    limit_hit("pmq: cannot create %s (%llu bytes): RLIMIT_MSGQUEUE (%llu bytes per user) is used "
              "up, or a descriptor limit is reached",
              name, bytes, (unsigned long long)p->sys.rlimit);
    return MCX_ELIMIT;
  case MCX_EPERM:
  case MCX_EEXIST:
    /* Only another user's object can stand in our way: ours were removed. */
    limit_hit("pmq: cannot create %s: a queue of that name exists and belongs to another user "
              "(left alone)",
              name);
    return MCX_EIO;
  default:
    limit_hit("pmq: cannot create %s: the system refused (%d)", name, r);
    return r;
  }
}

/* Checks a queue size against the limits before asking the kernel, so the
 * message names the limit precisely. */
static int precheck(const mcx__domain_t *d, const char *name, uint32_t depth, uint32_t msgsize)
{
  const mcx__pmq_t *p = d->pmq;
  if (!p->sys.privileged && p->sys.msg_max && depth > p->sys.msg_max) {
    limit_hit("pmq: %s: %u messages per queue exceed /proc/sys/fs/mqueue/msg_max (%u)", name, depth,
              p->sys.msg_max);
    return MCX_ELIMIT;
  }
  if (depth > MCX_PORT_MQ_HARD_MSGMAX) {
    limit_hit("pmq: %s: %u messages per queue exceed the kernel's HARD_MSGMAX (%u)", name, depth,
              MCX_PORT_MQ_HARD_MSGMAX);
    return MCX_ELIMIT;
  }
  unsigned long long bytes = mcx_port_mq_bytes(depth, msgsize);
  if (bytes > p->sys.rlimit) {
    limit_hit("pmq: %s: %u messages x %u bytes need %llu bytes, above RLIMIT_MSGQUEUE (%llu bytes "
              "per user)",
              name, depth, msgsize, bytes, (unsigned long long)p->sys.rlimit);
    return MCX_ELIMIT;
  }
  return MCX_OK;
}

/* Creates queue @p name; a leftover of the same name (a dead process with our
 * pid, where /dev/mqueue could not be listed) is replaced once. */
static int create_queue(const mcx__domain_t *d, const char *name, uint32_t depth, int *fd)
{
  int r = precheck(d, name, depth, d->pmq->msgsize);
  if (r)
    return r;
  r = mcx_port_mq_create(name, depth, d->pmq->msgsize, fd);
  if (r == MCX_EEXIST && (r = mcx_port_mq_unlink(name)) == MCX_OK)
    r = mcx_port_mq_create(name, depth, d->pmq->msgsize, fd);
  return r ? create_failed(d, r, name, depth, d->pmq->msgsize) : MCX_OK;
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
static void sweep(const mcx__domain_t *d, uint32_t only_pid)
{
  char prefix[128];
  snprintf(prefix, sizeof prefix, "%s-p", d->name + 1); /* the partition's name, without '/' */
  struct sweep s = {strlen(prefix), only_pid, 0};
  if (mcx_port_mq_list(prefix, sweep_one, &s) != MCX_OK) {
    MCX_DEBUG(1, "pmq: /dev/mqueue is not mounted: queues of dead processes cannot be found "
                 "(mount -t mqueue none /dev/mqueue)");
    return;
  }
  if (s.removed)
    MCX_DEBUG(1, "pmq: domain %u: removed %u queue(s) of %s", d->domain_id, s.removed,
              only_pid ? "this process" : "dead processes");
}

int mcx__pmq_domain_open(mcx__domain_t *d)
{
  uint32_t n = d->g.max_endpoints + d->g.n_chans;
  mcx__pmq_t *p = calloc(1, sizeof *p + (size_t)n * sizeof(pmq_slot_t));
  if (!p)
    return MCX_ENOMEM;
  p->neps = d->g.max_endpoints;
  p->nchans = d->g.n_chans;
  if (p->nchans && !(p->rx = calloc(p->nchans, sizeof *p->rx))) {
    free(p);
    return MCX_ENOMEM;
  }
  if (mcx_port_mq_sys(&p->sys) == MCX_ENOSYS) { /* built without message queues */
    free(p->rx);
    free(p);
    return MCX_ENOSYS;
  }
  p->uid = mcx_port_uid();
  p->domain_id = d->domain_id;
  p->tag = d->hdr->name_tag;
  p->nslots = n;
  p->msgsize = d->g.max_msg ? d->g.max_msg : 1;
  p->pkt_size = MCAPI_MAX_PKT_SIZE ? MCAPI_MAX_PKT_SIZE : 1;
  if (p->sys.msgsize_max && p->pkt_size > p->sys.msgsize_max)
    p->pkt_size = p->sys.msgsize_max; /* packets are bounded like messages */
  /* Default depth: the partition's queue depth, within msg_max (the
   * administrator's per-queue default, honoured by privileged processes too),
   * a power of two as NUM_RECV_BUFFERS requires, and within RLIMIT_MSGQUEUE. */
  uint32_t depth = d->g.qcap;
  if (p->sys.msg_max && depth > p->sys.msg_max)
    depth = p->sys.msg_max;
  while (depth & (depth - 1))
    depth &= depth - 1;
  while (depth > 2 && mcx_port_mq_bytes(depth, p->msgsize) > p->sys.rlimit)
    depth /= 2;
  p->depth = depth ? depth : 1;
  d->pmq = p;
  sweep(d, 0);
  MCX_DEBUG(1, "pmq: domain %u: queues of %u messages x %u bytes (%llu bytes of RLIMIT_MSGQUEUE "
               "%llu each)",
            d->domain_id, p->depth, p->msgsize,
            (unsigned long long)mcx_port_mq_bytes(p->depth, p->msgsize),
            (unsigned long long)p->sys.rlimit);
  return MCX_OK;
}

void mcx__pmq_domain_close(mcx__domain_t *d, int last_in_domain)
{
  mcx__pmq_t *p = d->pmq;
  if (!p)
    return;
  for (uint32_t i = 0; i < p->nslots; i++)
    if (p->slot[i].q)
      q_install(d, i, NULL);
  /* Every endpoint was deleted (and its queue unlinked) by its node's
   * finalize, or by the dead-node sweep; this catches what a failed call or
   * a crash may have left: our own queues, and when we are the domain's last
   * node, those of dead processes too. Live processes' queues are theirs
   * (one may be joining a fresh partition of the same domain right now). */
  sweep(d, mcx_port_pid());
  if (last_in_domain)
    sweep(d, 0);
  for (uint32_t i = 0; i < p->nchans; i++)
    free(p->rx[i].pool);
  free(p->rx);
  d->pmq = NULL;
  free(p);
}

void mcx__pmq_domain_forget(mcx__domain_t *d)
{
  mcx__pmq_t *p = d->pmq;
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
    free(p->rx[i].pool);
  free(p->rx);
  d->pmq = NULL;
  free(p);
}

/* ------------------------------------------------------------ endpoints */

int mcx__pmq_ep_create(mcx__domain_t *d, uint32_t idx, uint32_t epoch, uint32_t *depth)
{
  char name[MCX_PORT_MQ_NAME_MAX];
  q_name(d, mcx_port_pid(), idx, epoch, name);
  int fd;
  int r = create_queue(d, name, d->pmq->depth, &fd);
  if (r)
    return r;
  pmq_q_t *q = q_new(fd, epoch);
  if (!q) {
    mcx_port_mq_close(fd);
    mcx_port_mq_unlink(name);
    return MCX_ENOMEM;
  }
  q_install(d, idx, q);
  *depth = d->pmq->depth;
  return MCX_OK;
}

uint32_t mcx__pmq_ep_delete(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx)
{
  char name[MCX_PORT_MQ_NAME_MAX];
  uint32_t epoch = mcx_load_relaxed(&e->ring_epoch), dropped = 0;
  pmq_slot_t *s = &d->pmq->slot[idx];
  mcx__mutex_lock(&s->lock, 0);
  if (s->q && s->q->epoch == epoch)
    mcx_port_mq_count(s->q->nb, &dropped);
  mcx__mutex_unlock(&s->lock, 0);
  q_name(d, owner_pid(d, e), idx, epoch, name);
  mcx_port_mq_unlink(name);
  q_install(d, idx, NULL);
  return dropped;
}

int mcx__pmq_ep_resize(mcx__domain_t *d, mcx__endpoint_t *e, uint32_t idx, uint32_t depth)
{
  uint32_t st = mcx_load_relaxed(&e->state);
  /* P1 — seq_cst store, then a seq_cst load of pmq_senders; pairs with P2 in
   * send_attempt (Dekker): either a sender sees RECONFIG and backs off, or we
   * see it counted and wait until it has finished its mq_send. */
  mcx_store_seq_cst(&e->state, (st & ~0xffu) | EP_RECONFIG);
  uint64_t until = mcx_port_now_ns() + 2ull * MCX_PMQ_TICK_MS * 1000000u;
  while (mcx_load_seq_cst(&e->pmq_senders) != 0 && mcx_port_now_ns() < until)
    mcx_port_yield();
  uint32_t epoch = mcx_load_relaxed(&e->ring_epoch), queued = 0;
  int r = MCX_OK;
  pmq_q_t *old;
  if (mcx_load_seq_cst(&e->pmq_senders) != 0) {
    r = MCX_EBUSY; /* a sender is blocked on a full queue */
  } else if ((r = q_get(d, e, idx, epoch, 0, &old)) == MCX_OK) {
    if (mcx_port_mq_count(old->nb, &queued) != MCX_OK || queued)
      r = MCX_EBUSY;
    q_put(d, idx, old);
  }
  if (!r) {
    char name[MCX_PORT_MQ_NAME_MAX], old_name[MCX_PORT_MQ_NAME_MAX];
    uint32_t next = (epoch + 1) & MCX_RING_GEN_MASK;
    int fd;
    q_name(d, mcx_port_pid(), idx, next, name);
    q_name(d, mcx_port_pid(), idx, epoch, old_name);
    pmq_q_t *q = NULL;
    r = create_queue(d, name, depth, &fd);
    if (!r && !(q = q_new(fd, next))) {
      mcx_port_mq_close(fd);
      mcx_port_mq_unlink(name);
      r = MCX_ENOMEM;
    }
    if (!r) {
      mcx_port_mq_unlink(old_name);
      q_install(d, idx, q);
      mcx_store_relaxed(&e->depth, depth);
      mcx_store_release(&e->ring_epoch, next); /* R-E4 */
    }
  }
  mcx_store_release(&e->state, (st & ~0xffu) | EP_ACTIVE); /* R-E1 */
  mcx__wp_broadcast(&e->space_wp, d->shared);
  return r;
}

/* ------------------------------------------------------------ messages */

static uint64_t tick_deadline(uint64_t deadline)
{
  uint64_t t = mcx_port_now_ns() + (uint64_t)MCX_PMQ_TICK_MS * 1000000u;
  return t < deadline ? t : deadline;
}

/*
 * One send: @p dl 0 tries once, otherwise waits for space until @p dl.
 * MCX_EBUSY: the endpoint is being re-sized, try again.
 */
static int send_attempt(mcx__domain_t *d, mcx__endpoint_t *dst, uint32_t to, const void *buf,
                        size_t size, uint32_t prio, uint64_t dl)
{
  int r;
  /* P2 — seq_cst RMW, then a seq_cst load of state; pairs with P1 (resize). */
  mcx_fetch_add_seq_cst(&dst->pmq_senders, 1);
  uint32_t st = mcx_load_seq_cst(&dst->state);
  if (!mcx__ep_gen_ok(d, to, st) || (EP_STATE(st) != EP_ACTIVE && EP_STATE(st) != EP_RECONFIG)) {
    r = MCX_ECLOSED; /* deleted while we were sending */
  } else if (st & EP_UNREACH) {
    r = MCX_EUNREACH;
  } else if (EP_STATE(st) == EP_RECONFIG) {
    r = MCX_EBUSY;
  } else {
    /* The state load (seq_cst, so acquire) pairs with R-E1: the epoch of
     * this active incarnation is visible. */
    uint32_t epoch = mcx_load_relaxed(&dst->ring_epoch);
    uint32_t idx = mcx__ep_idx(d, dst);
    pmq_q_t *q;
    r = q_get(d, dst, idx, epoch, dl != 0, &q);
    if (r == MCX_OK) {
      r = mcx_port_mq_send(dl ? q->blk : q->nb, buf, size, MCAPI_MAX_PRIORITY - prio, dl);
      q_put(d, idx, q);
    } else if (r == MCX_ENOENT) {
      r = MCX_ECLOSED; /* unlinked by a delete after our state check */
    }
  }
  mcx_fetch_sub_release(&dst->pmq_senders, 1); /* after our mq_send; read by P1 */
  /* A request sleeping in mcapi_wait for this endpoint: the kernel's queue
   * lock orders our mq_send before this load and its re-check after its
   * announcement (F-W1), so one of the two sees the other. */
  if (r == MCX_OK)
    mcx__wp_notify_after_rmw(&dst->recv_wp, d->shared);
  return r;
}

int mcx__pmq_send(mcx__domain_t *d, mcx__endpoint_t *src, mcx__endpoint_t *dst, uint32_t to,
                  const void *buf, size_t size, uint32_t prio, int block)
{
  uint32_t timeout = block ? mcx__ep_timeout(d, src) : 0;
  uint64_t deadline = 0, dl = 0;
  mcx__backoff_t b;
  mcx__backoff_begin(&b);
  for (;;) {
    int r = send_attempt(d, dst, to, buf, size, prio, dl);
    if (r == MCX_EBUSY) {
      mcx_port_yield(); /* a re-size is under way */
      continue;
    }
    if (r == MCX_OK)
      mcx__backoff_end(&b); /* adapts the thread's spin budget */
    if (r != MCX_EAGAIN && r != MCX_ETIMEDOUT)
      return r;
    /* Full. */
    uint64_t started = deadline;
    if ((r = mcx__send_no_room(d, src, block, timeout, &deadline)) != MCX_OK)
      return r;
    if (started && mcx_port_now_ns() >= deadline)
      return MCX_ETIMEDOUT;
    /* A receiver that died never drains: reclaim it (its endpoint is deleted,
     * its queue unlinked), as the ring path does. */
    if (dl && !mcx__node_alive(d, mcx_load_relaxed(&dst->owner_slot)))
      mcx__sweep_dead(d);
    if (!dl && !mcx__backoff_step(&b))
      continue; /* poll first (the wait policy's spins and yields): a kernel wake-up costs more */
    dl = tick_deadline(deadline); /* the next attempt re-checks the endpoint first */
  }
}

static int recv_attempt(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t h, void *buf, size_t cap,
                        size_t *size, uint64_t dl)
{
  uint32_t idx = mcx__ep_idx(d, ep);
  uint32_t epoch = mcx_load_relaxed(&ep->ring_epoch); /* only we (the owner) re-size */
  pmq_q_t *q;
  int r = q_get(d, ep, idx, epoch, dl != 0, &q);
  if (r)
    return r == MCX_ENOENT ? MCX_ECLOSED : r;
  int fd = dl ? q->blk : q->nb;
  size_t msgsize = d->pmq->msgsize, len = 0;
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
  q_put(d, idx, q);
  if (r != MCX_OK)
    return r;
  *size = len;
  mcx__wp_notify(&ep->space_wp, d->shared); /* a send request sleeping in mcapi_wait */
  return len > cap ? MCX_ETRUNC : MCX_OK;
}

int mcx__pmq_recv(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t h, void *buf, size_t cap,
                  size_t *size, int block)
{
  uint32_t timeout = block ? mcx__ep_timeout(d, ep) : 0;
  uint64_t deadline = 0, dl = 0;
  mcx__backoff_t b;
  mcx__backoff_begin(&b);
  for (;;) {
    int r = recv_attempt(d, ep, h, buf, cap, size, dl);
    if (r == MCX_OK || r == MCX_ETRUNC)
      mcx__backoff_end(&b); /* adapts the thread's spin budget */
    if (r != MCX_EAGAIN && r != MCX_ETIMEDOUT)
      return r;
    if (!block)
      return MCX_EAGAIN;
    if (timeout == 0)
      return MCX_ETIMEDOUT;
    if (!deadline)
      deadline = mcx_port_deadline_ms(timeout);
    else if (mcx_port_now_ns() >= deadline)
      return MCX_ETIMEDOUT;
    if (mcx__ep_resolve(d, h, &ep) != MCX_OK)
      return MCX_ECLOSED;
    if (!dl && !mcx__backoff_step(&b))
      continue; /* poll first, as the ring path spins and yields before it sleeps */
    dl = tick_deadline(deadline);
  }
}

int mcx__pmq_available(mcx__domain_t *d, mcx__endpoint_t *ep, uint32_t h, uint32_t *count)
{
  uint32_t idx = mcx__ep_idx(d, ep);
  pmq_q_t *q;
  int r = q_get(d, ep, idx, mcx_load_relaxed(&ep->ring_epoch), 0, &q);
  if (r)
    return r == MCX_ENOENT ? MCX_ECLOSED : r;
  r = mcx_port_mq_count(q->nb, count);
  q_put(d, idx, q);
  return r;
}

/* ------------------------------------------------------------ channels */

static void chan_name(const mcx__domain_t *d, const void *arg, char *out)
{
  const mcx__pmq_chan_t *c = arg;
  snprintf(out, MCX_PORT_MQ_NAME_MAX, "%s-p%u-c%u-g%u-%016llx", d->name, c->pid, c->idx, c->gen,
           (unsigned long long)d->pmq->tag);
}

static uint32_t chan_msgsize(const mcx__pmq_t *p, const mcx__pmq_chan_t *c)
{
  return c->type == MCAPI_PKT_CHAN ? p->pkt_size : 16u; /* a scalar: width byte + 8 bytes */
}

int mcx__pmq_chan_create(mcx__domain_t *d, const mcx__pmq_chan_t *c)
{
  mcx__pmq_t *p = d->pmq;
  uint32_t cslot = p->neps + c->idx;
  pmq_slot_t *s = &p->slot[cslot];
  char name[MCX_PORT_MQ_NAME_MAX];
  chan_name(d, c, name);
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
  if ((r = precheck(d, name, depth, size)) != MCX_OK)
    goto out;
  r = mcx_port_mq_create(name, depth, size, &fd);
  if (r == MCX_EEXIST && (r = mcx_port_mq_unlink(name)) == MCX_OK) /* a dead process's, ours */
    r = mcx_port_mq_create(name, depth, size, &fd);
  if (r) {
    r = create_failed(d, r, name, depth, size);
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

void mcx__pmq_chan_destroy(mcx__domain_t *d, const mcx__pmq_chan_t *c)
{
  mcx__pmq_t *p = d->pmq;
  char name[MCX_PORT_MQ_NAME_MAX];
  chan_name(d, c, name);
  mcx_port_mq_unlink(name);
  q_install(d, p->neps + c->idx, NULL);
  pmq_rx_t *rx = &p->rx[c->idx];
  mcx__mutex_lock(&p->rx_lock, 0);
  free(rx->pool);
  memset(rx, 0, sizeof *rx);
  mcx__mutex_unlock(&p->rx_lock, 0);
}

/* The connection's queue. The receiving side's process makes it (its open
 * does; a first use there too); elsewhere a missing queue means the
 * receiver has not opened yet: EAGAIN, as a full queue (the state machine
 * guarantees no use after tear-down). */
static int chan_acquire(mcx__domain_t *d, const mcx__pmq_chan_t *c, pmq_q_t **q)
{
  uint32_t cslot = d->pmq->neps + c->idx;
  int r = q_acquire(d, cslot, c->gen, 0, chan_name, c, q);
  if (r == MCX_ENOENT && c->pid != mcx_port_pid())
    return MCX_EAGAIN;
  if (r == MCX_ENOENT && (r = mcx__pmq_chan_create(d, c)) == MCX_OK)
    r = q_acquire(d, cslot, c->gen, 0, chan_name, c, q);
  return r;
}

int mcx__pmq_chan_put(mcx__domain_t *d, const mcx__pmq_chan_t *c, const void *buf, size_t len)
{
  pmq_q_t *q;
  uint32_t cslot = d->pmq->neps + c->idx;
  int r = chan_acquire(d, c, &q);
  if (r)
    return r;
  r = mcx_port_mq_send(q->nb, buf, len, 0, 0);
  q_put(d, cslot, q);
  return r;
}

/* One receive of the raw message; the caller's buffer holds mq_msgsize. */
static int chan_get(mcx__domain_t *d, const mcx__pmq_chan_t *c, void *buf, size_t cap,
                    size_t *len)
{
  pmq_q_t *q;
  uint32_t cslot = d->pmq->neps + c->idx;
  int r = chan_acquire(d, c, &q);
  if (r)
    return r;
  unsigned prio;
  r = mcx_port_mq_recv(q->nb, buf, cap, len, &prio, 0);
  q_put(d, cslot, q);
  return r;
}

static pmq_rx_t *rx_of(mcx__domain_t *d, const mcx__pmq_chan_t *c)
{
  pmq_rx_t *rx = &d->pmq->rx[c->idx];
  if (rx->gen != c->gen) { /* a new connection on this record */
    mcx__mutex_lock(&d->pmq->rx_lock, 0);
    free(rx->pool);
    memset(rx, 0, sizeof *rx);
    rx->gen = c->gen;
    mcx__mutex_unlock(&d->pmq->rx_lock, 0);
  }
  return rx;
}

int mcx__pmq_scl_get(mcx__domain_t *d, const mcx__pmq_chan_t *c, uint32_t width, uint64_t *value)
{
  pmq_rx_t *rx = rx_of(d, c);
  if (!rx->pb_valid) {
    unsigned char m[16];
    size_t len;
    int r = chan_get(d, c, m, sizeof m, &len);
    if (r)
      return r;
    if (len != 9)
      return MCX_EIO;
    rx->pb_width = m[0];
    memcpy(&rx->pb_value, m + 1, 8);
    rx->pb_valid = 1;
  }
  if (rx->pb_width != width) {
    if (d->compat == 2 /* MCX_COMPAT_MCA203_ */)
      rx->pb_valid = 0; /* the reference consumes it */
    return MCX_EWIDTH; /* spec: kept, a receive of the right width gets it */
  }
  rx->pb_valid = 0;
  *value = rx->pb_value;
  return MCX_OK;
}

int mcx__pmq_scl_put(mcx__domain_t *d, const mcx__pmq_chan_t *c, uint32_t width, uint64_t value)
{
  unsigned char m[9];
  m[0] = (unsigned char)width;
  memcpy(m + 1, &value, 8);
  return mcx__pmq_chan_put(d, c, m, sizeof m);
}

size_t mcx__pmq_pkt_size(const mcx__domain_t *d) { return d->pmq->pkt_size; }

int mcx__pmq_pkt_get(mcx__domain_t *d, const mcx__pmq_chan_t *c, uint32_t nbuf, uint32_t b,
                     void **out, size_t *len)
{
  pmq_rx_t *rx = rx_of(d, c);
  if (!rx->pool) { /* only this (receiving) thread allocates; release may look it up */
    size_t stride = (d->pmq->pkt_size + MCAPI_BUF_ALIGN - 1) / MCAPI_BUF_ALIGN * MCAPI_BUF_ALIGN;
    uint8_t *pool = aligned_alloc(MCAPI_BUF_ALIGN, stride * nbuf);
    if (!pool)
      return MCX_ENOMEM;
    mcx__mutex_lock(&d->pmq->rx_lock, 0);
    rx->pool = pool;
    rx->stride = (uint32_t)stride;
    rx->nbuf = nbuf;
    mcx__mutex_unlock(&d->pmq->rx_lock, 0);
  }
  if (b >= rx->nbuf)
    return MCX_EINVAL;
  uint8_t *buf = rx->pool + (size_t)b * rx->stride;
  int r = chan_get(d, c, buf, rx->stride, len);
  if (r == MCX_OK)
    *out = buf;
  return r;
}

int mcx__pmq_pkt_locate(const mcx__domain_t *d, const void *ptr, uint32_t *idx, uint32_t *b)
{
  mcx__pmq_t *p = d->pmq;
  const uint8_t *u = ptr;
  int r = MCX_EBADBUF;
  mcx__mutex_lock(&p->rx_lock, 0); /* other channels' pools change under their receivers */
  for (uint32_t i = 0; u && i < p->nchans; i++) {
    const pmq_rx_t *rx = &p->rx[i];
    if (rx->pool && u >= rx->pool && u < rx->pool + (size_t)rx->nbuf * rx->stride) {
      size_t off = (size_t)(u - rx->pool);
      if (off % rx->stride == 0) { /* else not the start of a buffer */
        *idx = i;
        *b = (uint32_t)(off / rx->stride);
        r = MCX_OK;
      }
      break;
    }
  }
  mcx__mutex_unlock(&p->rx_lock, 0);
  return r;
}

int mcx__pmq_chan_count(mcx__domain_t *d, const mcx__pmq_chan_t *c, uint32_t *count)
{
  pmq_q_t *q;
  uint32_t cslot = d->pmq->neps + c->idx;
  int r = chan_acquire(d, c, &q);
  if (r)
    return r;
  r = mcx_port_mq_count(q->nb, count);
  q_put(d, cslot, q);
  if (r == MCX_OK && c->type == MCAPI_SCL_CHAN && rx_of(d, c)->pb_valid)
    (*count)++;
  return r;
}

/* ------------------------------------------------------------ report */

void mcx__pmq_limits(struct mcx_pmq_limits *out)
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
  const mcx__domain_t *d = mcx__is_node() ? mcx__self.dom : NULL;
  if (d && d->pmq) {
    out->max_payload = d->pmq->msgsize;
    out->max_packet = d->pmq->pkt_size;
    out->default_depth = d->pmq->depth;
    out->queue_bytes = mcx_port_mq_bytes(d->pmq->depth, d->pmq->msgsize);
  }
  snprintf(out->last_error, sizeof out->last_error, "%s", last_error);
}
