/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The channels' data calls over the pmq transport (transport/pmq.c,
 * docs/pmq.md): a connection's scalars or packets travel in one POSIX
 * message queue (made by connect, unlinked at tear-down: chan_conn.c), and
 * a receiver copies packets out of it into a process-local pool that grows
 * in chunks up to the domain's buffer count (as many packets as a receiver
 * may hold on shm), with the buffers' states beside it (transport/pmq.c);
 * the record's `held` count tells the sender when every one is held. Here:
 * one try of a send or a receive, the count, a packet's release. The
 * waiting around them is the shm transport's (chan_wait.c).
 */
#include <string.h>

#include "runtime/chan.h"
#include "runtime/domain.h"

int mcx__chan_pmq_send(const mcx__domain_t *d, mcx__chan_t *ch, int pkt, const mcx__xfer_t *a)
{
  mcx__pmq_chan_t c = mcx__chan_pmq(d, ch, mcx_load_acquire(&ch->state)); /* A-C1 */
  /* The packets held by the receiver and those queued to it take the
   * domain's buffer count at most, as the pool does on shm: once they fill
   * it, only the receiver's releases help (MEM_LIMIT). The queue is counted
   * only near the limit. A-B2: pairs with R-B2 in release. */
  uint32_t held = pkt ? mcx_load_acquire(&ch->held) : 0, queued = 0;
  if (pkt && held + c.depth >= d->g.n_msg_bufs &&
      (held >= d->g.n_msg_bufs ||
       (mcx__pmq_chan_count(d->pmq, &c, &queued) == MCX_OK && held + queued >= d->g.n_msg_bufs)))
    return MCX_ENOMEM;
  int r = pkt ? mcx__pmq_chan_put(d->pmq, &c, a->src, a->size)
              : mcx__pmq_scl_put(d->pmq, &c, a->width, a->value);
  if (r == MCX_OK)
    mcx__wp_notify(&ch->recv_wp, d->shared);
  return r;
}

uint32_t mcx__chan_pmq_count(mcx__domain_t *d, mcx__chan_t *ch)
{
  mcx__pmq_chan_t c = mcx__chan_pmq(d, ch, mcx_load_acquire(&ch->state)); /* A-C1 */
  uint32_t n = 0;
  return mcx__pmq_chan_count(d->pmq, &c, &n) == MCX_OK ? n : 0;
}

int mcx__chan_pmq_recv(const mcx__domain_t *d, mcx__chan_t *ch, int pkt, mcx__xfer_t *a)
{
  mcx__pmq_chan_t c = mcx__chan_pmq(d, ch, mcx_load_acquire(&ch->state)); /* A-C1 */
  uint32_t limit = d->g.n_msg_bufs;
  int r = pkt ? mcx__pmq_pkt_get(d->pmq, &c, limit, &a->out, &a->size)
              : mcx__pmq_scl_get(d->pmq, &c, a->width, &a->value);
  if (r == MCX_EAGAIN) {
    /* Empty: wait while the sender is open; once it has closed or gone,
     * one more look (as mcx__chan_get_or_closed), then ENOTOPEN. */
    if (mcx__chan_peer_alive(ch, MCX_CHAN_RECV))
      return MCX_EAGAIN;
    /* Its last item, sent before its close, is in the queue by now. */
    r = pkt ? mcx__pmq_pkt_get(d->pmq, &c, limit, &a->out, &a->size)
            : mcx__pmq_scl_get(d->pmq, &c, a->width, &a->value);
    if (r == MCX_EAGAIN)
      return MCX_ENOTOPEN;
  }
  if (r != MCX_OK)
    return r;
  if (pkt) /* receiver-owned count; read by the sender (A-B2) */
    mcx_store_relaxed(&ch->held, mcx_load_relaxed(&ch->held) + 1);
  mcx__wp_notify(&ch->space_wp, d->shared); /* room in the queue */
  return MCX_OK;
}

/* The channel record of a buffer this process's pool handed out, checked
 * against the record (not necessarily LIVE: a buffer held across its
 * connection's tear-down is released as before, and the record is not
 * reused while any is held: mcx__chan_holds_kept). */
static int record_of(const mcx__domain_t *d, uint32_t rec, mcx__chan_t **out)
{
  if (rec >= d->g.n_chans)
    return MCX_EBADBUF;
  mcx__chan_t *ch = mcx__chan_at(d, rec);
  (void)mcx_load_acquire(&ch->state); /* A-C1 */
  if (mcx_load_relaxed(&ch->type) != MCAPI_PKT_CHAN ||
      mcx_load_relaxed(&ch->owner[MCX_CHAN_RECV]) != mcx__self.node_slot)
    return MCX_EBADBUF;
  *out = ch;
  return MCX_OK;
}

int mcx__chan_pmq_release(mcx__domain_t *d, void *buf)
{
  mcx__chan_t *ch;
  uint32_t rec;
  int r = mcx__pmq_pkt_release(d->pmq, buf, &rec, 1); /* held? */
  if (r != 0 || record_of(d, rec, &ch) != MCX_OK)
    return MCX_EBADBUF;
  if (mcx__ref())
    memset(buf, 0, mcx__pmq_pkt_size(d->pmq)); /* the reference hands back zeroed buffers */
  /* Only a held buffer is released, once (a racing release of the same one loses here). */
  if (mcx__pmq_pkt_release(d->pmq, buf, &rec, 0) != MCX_OK)
    return MCX_EBADBUF;
  /* R-B2 — release: held drops after the user's last use of the buffer; pairs
   * with A-B2 (mcx__chan_pmq_send). The receiving node's count: its releases
   * and receives are that node's calls. */
  mcx_store_release(&ch->held, mcx_load_relaxed(&ch->held) - 1);
  mcx__wp_notify(&ch->space_wp, d->shared);
  return MCX_OK;
}

int mcx__chan_pmq_release_test(mcx__domain_t *d, void *buf)
{
  mcx__chan_t *ch;
  uint32_t rec;
  int r = mcx__pmq_pkt_release(d->pmq, buf, &rec, 1);
  if (r < 0 || record_of(d, rec, &ch) != MCX_OK)
    return MCX_EBADBUF;
  return r; /* 1: released */
}
