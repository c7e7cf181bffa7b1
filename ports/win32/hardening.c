/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hardening calls of mcx_port_shm.h on Windows. Named mappings there are
 * created with a security descriptor for the creating user only, so no other
 * user's object can sit under our name: there is nothing to stat and no
 * private-name record; the random source is the system's (rand_s).
 */
#define _CRT_RAND_S
#include <stdlib.h>
#include <string.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"

uint32_t mcx_port_tid_pid(uint32_t tid) { return mcx_port_tid_alive(tid) ? mcx_port_pid() : 0; }

int mcx_port_random(void *buf, size_t n)
{
  unsigned char *p = buf;
  while (n) {
    unsigned int v;
    if (rand_s(&v) != 0)
      return MCX_EIO;
    size_t k = n < sizeof v ? n : sizeof v;
    memcpy(p, &v, k);
    p += k;
    n -= k;
  }
  return MCX_OK;
}

int mcx_port_shm_stat(const char *name, uint32_t *uid, unsigned *mode, size_t *size)
{
  (void)name, (void)uid, (void)mode, (void)size;
  return MCX_EIO;
}

int mcx_port_name_record(const char *key, const char *proposal, char *out, size_t n, char *where,
                         size_t wn)
{
  (void)key, (void)proposal, (void)out, (void)n, (void)where, (void)wn;
  return MCX_ENOENT;
}
