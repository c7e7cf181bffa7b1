/* SPDX-License-Identifier: BSD-3-Clause */
/* No POSIX message queues (MCA_WITH_PMQ=OFF): every queue operation reports
 * MCX_ENOSYS, so a domain asking for the pmq transport is refused and the shm
 * transport is unaffected. Built instead of ports/posix/mq.c. */
#include <stdint.h>
#include <string.h>

#include "common/mcx_err.h"
#include "ports/mcx_port_mq.h"

int mcx_port_mq_sys(mcx_port_mq_sys_t *out)
{
  memset(out, 0, sizeof *out);
  return MCX_ENOSYS;
}

uint64_t mcx_port_mq_bytes(uint32_t maxmsg, uint32_t msgsize)
{
  (void)maxmsg;
  (void)msgsize;
  return 0;
}

int mcx_port_mq_create(const char *name, uint32_t maxmsg, uint32_t msgsize, int *fd)
{
  (void)name;
  (void)maxmsg;
  (void)msgsize;
  *fd = -1;
  return MCX_ENOSYS;
}

int mcx_port_mq_open(const char *name, int nonblock, int *fd)
{
  (void)name;
  (void)nonblock;
  *fd = -1;
  return MCX_ENOSYS;
}

void mcx_port_mq_close(int fd) { (void)fd; }

int mcx_port_mq_unlink(const char *name)
{
  (void)name;
  return MCX_ENOSYS;
}

int mcx_port_mq_send(int fd, const void *buf, size_t len, unsigned prio, uint64_t deadline_ns)
{
  (void)fd;
  (void)buf;
  (void)len;
  (void)prio;
  (void)deadline_ns;
  return MCX_ENOSYS;
}

int mcx_port_mq_recv(int fd, void *buf, size_t cap, size_t *len, unsigned *prio,
                     uint64_t deadline_ns)
{
  (void)fd;
  (void)buf;
  (void)cap;
  (void)len;
  (void)prio;
  (void)deadline_ns;
  return MCX_ENOSYS;
}

int mcx_port_mq_count(int fd, uint32_t *count)
{
  (void)fd;
  *count = 0;
  return MCX_ENOSYS;
}

int mcx_port_mq_list(const char *prefix, void (*fn)(const char *name, void *arg), void *arg)
{
  (void)prefix;
  (void)fn;
  (void)arg;
  return MCX_OK; /* nothing to list */
}
