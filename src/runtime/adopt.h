/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file adopt.h
 * @brief Endpoints kept through their owner's death and adopted by its
 * restart (adopt.c), and the held receive that makes a take undoable: what a
 * bridge needs so that a kill -9 loses no message queued on its proxies
 * (docs/bridge.md: adoption). Shared memory only, spec profile only.
 */
#ifndef MCX_RUNTIME_ADOPT_H
#define MCX_RUNTIME_ADOPT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/domain.h"

/**
 * Marks the caller's message endpoint @p h as kept: when its node dies, the
 * sweep leaves it and its queue (orphaned, sends refused as unreachable)
 * for mcx__ep_adopt() instead of deleting it.
 * @retval MCX_OK kept.
 * @retval MCX_ENOSYS the domain's transport or profile has no adoption.
 * @retval MCX_EPERM, MCX_ESTALE, MCX_EINVAL not an endpoint of the caller's.
 */
int mcx__ep_keep(uint32_t h);

/**
 * Leaves the caller's kept endpoint @p h to its restart, as its death would
 * (a stop that loses nothing): orphaned, its queue and all, sends refused as
 * unreachable (senders blocked on its full queue are woken with it), no
 * longer the caller's, so finalize does not delete it; a later process of
 * this node id adopts it (mcx__ep_adopt). Messages the caller holds
 * (mcx__msg_take_held) go back to the head of their ring, in order.
 * @retval MCX_OK left.
 * @retval MCX_EINVAL not kept.
 * @retval MCX_ENOSYS the domain's transport or profile has no adoption.
 * @retval MCX_ECHAN, MCX_EPERM, MCX_ESTALE not a message endpoint of the caller's.
 * @retval MCX_EIO the admin lock could not be taken.
 */
int mcx__ep_leave(uint32_t h);

/**
 * Adopts the orphaned endpoint of this node's id and @p port: it becomes the
 * caller's (still unreachable: the caller marks it). For each priority p
 * below @p ndrop whose @p drop_upto[p] is not UINT64_MAX, the messages at
 * the head of its ring at positions up to drop_upto[p] (the dead owner had
 * taken them, recorded them elsewhere, and died before giving them back:
 * the sweep put them back) are discarded; *@p dropped counts them.
 * @retval MCX_OK *@p handle and *@p dropped set.
 * @retval MCX_ENOENT no orphan of that port.
 * @retval MCX_ENOMEM the node has no endpoint index free.
 * @retval MCX_EIO the admin lock could not be taken.
 */
int mcx__ep_adopt(uint32_t port, const uint64_t *drop_upto, uint32_t ndrop, uint32_t *handle, uint32_t *dropped);

/**
 * Copies the oldest message of the caller's endpoint @p h (highest priority
 * first) into @p buf (@p cap bytes; a longer one is cut) and keeps its slot
 * held: the queue does not reuse it until mcx__msg_give_held(), and a kill
 * before then leaves it to the sweep, which puts it back at the head of a
 * kept endpoint. Several may be held; they are given back in the order
 * they were taken (the held ones of a ring are the run before its head). *@p size is its
 * size, *@p prio its priority, *@p pos its ring position.
 * @retval MCX_OK taken.
 * @retval MCX_EAGAIN empty (or a corrupt slot was skipped: try again).
 * @retval MCX_ECHAN, MCX_EPERM, MCX_ESTALE, MCX_EINVAL, MCX_ENOSYS not a message endpoint of the caller's here.
 */
int mcx__msg_take_held(uint32_t h, void *buf, size_t cap, size_t *size, uint32_t *prio, uint64_t *pos);

/** Gives back the slot mcx__msg_take_held() took at (@p prio, @p pos); MCX_OK, or MCX_EINVAL when it holds none there. */
int mcx__msg_give_held(uint32_t h, uint32_t prio, uint64_t pos);

/** The sweep's part (admin lock held): a kept endpoint @p idx of a dead node
 * is orphaned (its held message back at the head of its ring) instead of
 * deleted. 1 when it was, 0 when it is to be deleted as usual. */
int mcx__ep_orphan_locked(mcx__domain_t *d, uint32_t idx, uint32_t dead_slot);

#endif
