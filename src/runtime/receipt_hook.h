/* SPDX-License-Identifier: BSD-3-Clause */
/* The receipt protocol's test hook (runtime/receipt.c): when set, a
 * receipted send calls it at each step 0..4 of its protocol (see
 * mcx__mpsc_commit_t), so a crash test can stop the sender there. */
#ifndef MCX_RUNTIME_RECEIPT_HOOK_H
#define MCX_RUNTIME_RECEIPT_HOOK_H

extern void (*mcx__receipt_test_hook)(int step);

#endif
