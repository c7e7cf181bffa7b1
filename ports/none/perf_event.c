/* SPDX-License-Identifier: BSD-3-Clause */
/* No hardware performance counters (MCA_WITH_HPC=OFF): perf_event_open is
 * reported as absent (MCX_ENOSYS), so every mcx_hpc_* counter reads "not
 * supported" as on a machine without a PMU. Built instead of
 * ports/linux/perf_event.c. */
#include <stddef.h>
#include <stdint.h>

#include "common/mcx_err.h"
#include "ports/mcx_port_hpc.h"

int mcx_port_perf_open(const mcx_port_perf_attr_t *attr, int32_t tid, int32_t cpu, int group_fd,
                       int *fd_out)
{
  (void)attr;
  (void)tid;
  (void)cpu;
  (void)group_fd;
  *fd_out = -1;
  return MCX_ENOSYS;
}

void mcx_port_perf_close(int fd) { (void)fd; }

int mcx_port_perf_ioctl(int leader_fd, enum mcx_port_perf_op op)
{
  (void)leader_fd;
  (void)op;
  return MCX_ENOSYS;
}

int mcx_port_perf_read_group(int leader_fd, uint64_t *words, size_t nwords)
{
  (void)leader_fd;
  (void)words;
  (void)nwords;
  return MCX_ENOSYS;
}

int mcx_port_perf_mmap(int fd, void **page_out)
{
  (void)fd;
  *page_out = NULL;
  return MCX_ENOSYS;
}

void mcx_port_perf_munmap(void *page) { (void)page; }

int mcx_port_perf_read_user(const void *page, uint64_t *count, uint64_t *enabled,
                            uint64_t *running)
{
  (void)page;
  (void)count;
  (void)enabled;
  (void)running;
  return MCX_ENOSYS;
}

int mcx_port_perf_cap_rdpmc(const void *page)
{
  (void)page;
  return 0;
}
