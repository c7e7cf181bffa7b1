/* SPDX-License-Identifier: BSD-3-Clause */
/* MRAPI atomic extensions (reference-implementation names): lock-free
 * read-modify-write on 1/2/4/8-byte integers in any memory, including memory
 * shared between processes. Every RMW is seq_cst (a full barrier, as the
 * reference's __sync builtins are); read is acquire; release is release.
 * and/xor/bit operations are CAS loops so that they, too, are seq_cst. */
#include <stdint.h>

#include "common/mcx_atomic.h"
#include "mrapi.h"
#include "mrapi/mrapi_domain.h"
#include "ports/mcx_port.h"

#include "api/export.h"
#define API MCX_API

typedef _Atomic uint8_t a8_t;
typedef _Atomic uint16_t a16_t;

enum op { OP_ADD, OP_OR, OP_AND, OP_XOR, OP_XCHG };

static int node_ok(mrapi_status_t *status)
{
  uint32_t d, n;
  if (mcx__mr_whoami(&d, &n) != MCX_OK) {
    *status = MRAPI_ERR_NODE_NOTINIT;
    return 0;
  }
  return 1;
}

static int arg_ok(const void *dest, size_t size, mrapi_status_t *status)
{
  if (!dest || (size != 1 && size != 2 && size != 4 && size != 8) || ((uintptr_t)dest & (size - 1))) {
    *status = MRAPI_ERR_ATOM_INVALID_ARG;
    return 0;
  }
  return 1;
}

static uint64_t get_val(const void *p, size_t size)
{
  switch (size) {
  case 1:
    return *(const uint8_t *)p;
  case 2:
    return *(const uint16_t *)p;
  case 4:
    return *(const uint32_t *)p;
  default:
    return *(const uint64_t *)p;
  }
}

static void put_val(void *p, size_t size, uint64_t v)
{
  if (!p)
    return;
  switch (size) {
  case 1:
    *(uint8_t *)p = (uint8_t)v;
    break;
  case 2:
    *(uint16_t *)p = (uint16_t)v;
    break;
  case 4:
    *(uint32_t *)p = (uint32_t)v;
    break;
  default:
    *(uint64_t *)p = v;
  }
}

static uint64_t apply(enum op op, uint64_t old, uint64_t v)
{
  switch (op) {
  case OP_ADD:
    return old + v;
  case OP_OR:
    return old | v;
  case OP_AND:
    return old & v;
  case OP_XOR:
    return old ^ v;
  default:
    return v;
  }
}

/* Seq_cst CAS of one width; *expected is updated on failure. */
static int cas_sz(void *dest, size_t size, uint64_t *expected, uint64_t desired)
{
  switch (size) {
  case 1: {
    uint8_t e = (uint8_t)*expected;
    int ok = mcx_cas_seq_cst((a8_t *)dest, &e, (uint8_t)desired);
    *expected = e;
    return ok;
  }
  case 2: {
    uint16_t e = (uint16_t)*expected;
    int ok = mcx_cas_seq_cst((a16_t *)dest, &e, (uint16_t)desired);
    *expected = e;
    return ok;
  }
  case 4: {
    uint32_t e = (uint32_t)*expected;
    mcx_cas_operand_barrier(&e); /* narrowed from 64 bits (RV64, mcx_atomic.h) */
    int ok = mcx_cas_seq_cst((mcx_atomic_u32 *)dest, &e, (uint32_t)desired);
    *expected = e;
    return ok;
  }
  default: {
    uint64_t e = *expected;
    int ok = mcx_cas_seq_cst((mcx_atomic_u64 *)dest, &e, desired);
    *expected = e;
    return ok;
  }
  }
}

static uint64_t load_sz(void *dest, size_t size)
{
  switch (size) {
  case 1:
    return mcx_load_acquire((a8_t *)dest);
  case 2:
    return mcx_load_acquire((a16_t *)dest);
  case 4:
    return mcx_load_acquire((mcx_atomic_u32 *)dest);
  default:
    return mcx_load_acquire((mcx_atomic_u64 *)dest);
  }
}

/* The RMW core: returns the old value. 4- and 8-byte add/or/xchg use the
 * single-instruction forms; everything else is a seq_cst CAS loop. */
static uint64_t rmw(void *dest, size_t size, enum op op, uint64_t v)
{
  if (size == 4 && op == OP_ADD)
    return mcx_fetch_add_seq_cst((mcx_atomic_u32 *)dest, (uint32_t)v);
  if (size == 8 && op == OP_ADD)
    return mcx_fetch_add_seq_cst((mcx_atomic_u64 *)dest, v);
  if (size == 4 && op == OP_OR)
    return mcx_fetch_or_seq_cst((mcx_atomic_u32 *)dest, (uint32_t)v);
  if (size == 4 && op == OP_XCHG)
    return mcx_exchange_seq_cst((mcx_atomic_u32 *)dest, (uint32_t)v);
  if (size == 8 && op == OP_XCHG)
    return mcx_exchange_seq_cst((mcx_atomic_u64 *)dest, v);
  uint64_t old = load_sz(dest, size); /* a first guess; the CAS is the ordered access */
  while (!cas_sz(dest, size, &old, apply(op, old, v))) {
  }
  return old;
}

static void rmw_api(const void *dest, const void *value, void *previous, size_t size, enum op op,
                    mrapi_status_t *status)
{
  if (!status || !node_ok(status) || !arg_ok(dest, size, status))
    return;
  if (!value) {
    *status = MRAPI_ERR_ATOM_INVALID_ARG;
    return;
  }
  uint64_t old = rmw((void *)dest, size, op, get_val(value, size));
  put_val(previous, size, old);
  *status = MRAPI_SUCCESS;
}

API void mrapi_atomic_read(void *sync, const void *dest, void *value, size_t size, mrapi_status_t *status)
{
  if (!status || !node_ok(status) || !arg_ok(dest, size, status))
    return;
  if (!value) {
    *status = MRAPI_ERR_ATOM_INVALID_ARG;
    return;
  }
  put_val(value, size, load_sz((void *)dest, size)); /* acquire: pairs with the writer's RMW/release */
  *status = MRAPI_SUCCESS;
}

API void mrapi_atomic_read_ptr(void *sync, const uintptr_t *dest, uintptr_t *value, mrapi_status_t *status)
{
  mrapi_atomic_read(sync, dest, value, sizeof(uintptr_t), status);
}

API void mrapi_atomic_add(void *sync, const void *dest, const void *value, void *previous, size_t size,
                          mrapi_status_t *status)
{
  rmw_api(dest, value, previous, size, OP_ADD, status);
}

static void incdec(const void *dest, void *result, size_t size, int delta, mrapi_status_t *status)
{
  if (!status || !node_ok(status) || !arg_ok(dest, size, status))
    return;
  uint64_t old = rmw((void *)dest, size, OP_ADD, (uint64_t)(int64_t)delta);
  put_val(result, size, old + (uint64_t)(int64_t)delta);
  *status = MRAPI_SUCCESS;
}

API void mrapi_atomic_inc(void *sync, const void *dest, void *result, size_t size, mrapi_status_t *status)
{
  incdec(dest, result, size, 1, status);
}

API void mrapi_atomic_dec(void *sync, const void *dest, void *result, size_t size, mrapi_status_t *status)
{
  incdec(dest, result, size, -1, status);
}

API void mrapi_atomic_or(void *sync, const void *dest, const void *value, void *previous, size_t size,
                         mrapi_status_t *status)
{
  rmw_api(dest, value, previous, size, OP_OR, status);
}

API void mrapi_atomic_and(void *sync, const void *dest, const void *value, void *previous, size_t size,
                          mrapi_status_t *status)
{
  rmw_api(dest, value, previous, size, OP_AND, status);
}

API void mrapi_atomic_xor(void *sync, const void *dest, const void *value, void *previous, size_t size,
                          mrapi_status_t *status)
{
  rmw_api(dest, value, previous, size, OP_XOR, status);
}

API void mrapi_atomic_xchg(void *sync, const void *dest, const void *exchange, void *previous, size_t size,
                           mrapi_status_t *status)
{
  rmw_api(dest, exchange, previous, size, OP_XCHG, status);
}

API void mrapi_atomic_cas(void *sync, const void *dest, const void *exchange, const void *compare, void *previous,
                          size_t size, mrapi_status_t *status)
{
  if (!status || !node_ok(status) || !arg_ok(dest, size, status))
    return;
  if (!exchange || !compare) {
    *status = MRAPI_ERR_ATOM_INVALID_ARG;
    return;
  }
  uint64_t seen = get_val(compare, size);
  int ok = cas_sz((void *)dest, size, &seen, get_val(exchange, size));
  put_val(previous, size, seen);
  *status = ok ? MRAPI_SUCCESS : MRAPI_ERR_ATOM_OP_FAILED;
}

API void mrapi_atomic_cas_ptr(void *sync, const uintptr_t *dest, uintptr_t exchange, uintptr_t compare,
                              uintptr_t *previous, mrapi_status_t *status)
{
  mrapi_atomic_cas(sync, dest, &exchange, &compare, previous, sizeof(uintptr_t), status);
}

API void mrapi_atomic_xchg_ptr(void *sync, const uintptr_t *dest, uintptr_t exchange, uintptr_t *previous,
                               mrapi_status_t *status)
{
  mrapi_atomic_xchg(sync, dest, &exchange, previous, sizeof(uintptr_t), status);
}

API void mrapi_atomic_sync(void *sync, mrapi_status_t *status)
{
  if (!status || !node_ok(status))
    return;
  mcx_fence_seq_cst();
  *status = MRAPI_SUCCESS;
}

API void mrapi_atomic_lock(void *sync, const void *dest, void *previous, size_t size, mrapi_status_t *status)
{
  if (!status || !node_ok(status) || !arg_ok(dest, size, status))
    return;
  for (unsigned spin = 0;; spin++) {
    uint64_t exp = 0;
    /* Acquire (seq_cst CAS): pairs with the release store in mrapi_atomic_release. */
    if (cas_sz((void *)dest, size, &exp, 1))
      break;
    if ((spin & 63) == 63)
      mcx_port_yield(); /* the holder may share our core */
    else
      mcx_port_cpu_relax();
  }
  put_val(previous, size, 0);
  *status = MRAPI_SUCCESS;
}

API void mrapi_atomic_release(void *sync, const void *dest, size_t size, mrapi_status_t *status)
{
  if (!status || !node_ok(status) || !arg_ok(dest, size, status))
    return;
  /* Release: the section's writes before the lock reads free; pairs with the
   * acquire CAS in mrapi_atomic_lock. */
  switch (size) {
  case 1:
    mcx_store_release((a8_t *)dest, (uint8_t)0);
    break;
  case 2:
    mcx_store_release((a16_t *)dest, (uint16_t)0);
    break;
  case 4:
    mcx_store_release((mcx_atomic_u32 *)dest, 0u);
    break;
  default:
    mcx_store_release((mcx_atomic_u64 *)dest, (uint64_t)0);
  }
  *status = MRAPI_SUCCESS;
}

static void bitop(const void *dest, int bit, int *previous, size_t size, enum op op, mrapi_status_t *status)
{
  if (!status || !node_ok(status) || !arg_ok(dest, size, status))
    return;
  if (bit < 0 || (size_t)bit >= size * 8) {
    *status = MRAPI_ERR_ATOM_INVALID_ARG;
    return;
  }
  uint64_t mask = 1ull << bit;
  uint64_t old = rmw((void *)dest, size, op, op == OP_AND ? ~mask : mask);
  if (previous)
    *previous = (old & mask) ? 1 : 0;
  *status = MRAPI_SUCCESS;
}

API void mrapi_atomic_set(void *sync, const void *dest, int bit, int *previous, size_t size, mrapi_status_t *status)
{
  bitop(dest, bit, previous, size, OP_OR, status);
}

API void mrapi_atomic_clear(void *sync, const void *dest, int bit, int *previous, size_t size,
                            mrapi_status_t *status)
{
  bitop(dest, bit, previous, size, OP_AND, status);
}

API void mrapi_atomic_change(void *sync, const void *dest, int bit, int *previous, size_t size,
                             mrapi_status_t *status)
{
  bitop(dest, bit, previous, size, OP_XOR, status);
}
