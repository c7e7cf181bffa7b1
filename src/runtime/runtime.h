/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file runtime.h
 * @brief The MCAPI runtime's headers in one, for the api layer. The
 * runtime's own files include the headers of what they use: partition.h
 * (the shared layout), domain.h (a process's view, the calling node, the
 * bottom layer), endpoint.h, state.h, receipt.h, msg_pmq.h, recovery.h,
 * node.h, request.h; msg.h and chan*.h for the messages and channels.
 */
#ifndef MCX_RUNTIME_H
#define MCX_RUNTIME_H

#include "runtime/domain.h"
#include "runtime/endpoint.h"
#include "runtime/msg_pmq.h"
#include "runtime/node.h"
#include "runtime/partition.h"
#include "runtime/receipt.h"
#include "runtime/recovery.h"
#include "runtime/request.h"
#include "runtime/state.h"

#endif
