/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file node.h
 * @brief Nodes (node.c): the top of the runtime. The partition's layout, a
 * node's init and finalize, the state display.
 */
#ifndef MCX_RUNTIME_NODE_H
#define MCX_RUNTIME_NODE_H

#include "runtime/domain.h"

/* ---- node (node.c): the top of the runtime, above crash recovery. The
 * partition's layout, a node's init and finalize. */
int mcx__node_init(uint32_t domain_id, uint32_t node_id, uint32_t node_type,
                   const mcx__init_opts_t *opts);
int mcx__node_finalize(void);

/** A thread's table of messages held in place (msg.c): made at node init
 * or adoption, NULL when out of memory (in-place receives then report
 * MCX_ENOMEM). */
struct mcx__held_tab *mcx__held_new(void);
void mcx__held_free(struct mcx__held_tab *t);

/** Prints the caller's domain, nodes and endpoints (node.c). */
void mcx__display_state(void);

#endif
