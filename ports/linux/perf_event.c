/* SPDX-License-Identifier: BSD-3-Clause */
/* perf_event_open counters (Linux): open, control, read, user page and rdpmc. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_hpc.h"

static int map_errno(int e)
{
  switch (e) {
  case ENOENT:
  case EOPNOTSUPP:
  case ENODEV:
  case ENOSYS:
    return MCX_ENOSYS;
  case EACCES:
  case EPERM:
    return MCX_EPERM;
  case ESRCH:
    return MCX_ENOENT;
  case EMFILE:
  case ENFILE:
  case ENOMEM:
    return MCX_ENOMEM;
  default:
    return MCX_EINVAL;
  }
}

int mcx_port_perf_open(const mcx_port_perf_attr_t *a, int32_t tid, int32_t cpu, int group_fd,
                       int *fd_out)
{
  struct perf_event_attr pa;
  memset(&pa, 0, sizeof pa);
  pa.size = sizeof pa;
  pa.type = a->type;
  pa.config = a->config;
  pa.config1 = a->config1;
  pa.disabled = a->disabled ? 1 : 0;
  pa.exclude_kernel = a->exclude_kernel ? 1 : 0;
  pa.exclude_hv = 1;
  pa.read_format =
      PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  /* tid 0 means "the caller" for perf too; -1 with a CPU is system-wide on that CPU. */
  long fd = syscall(SYS_perf_event_open, &pa, (pid_t)tid, (int)cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0)
    return map_errno(errno);
  *fd_out = (int)fd;
  return MCX_OK;
}

void mcx_port_perf_close(int fd)
{
  if (fd >= 0)
    close(fd);
}

int mcx_port_perf_ioctl(int leader_fd, enum mcx_port_perf_op op)
{
  unsigned long req = op == MCX_PORT_PERF_ENABLE    ? PERF_EVENT_IOC_ENABLE
                      : op == MCX_PORT_PERF_DISABLE ? PERF_EVENT_IOC_DISABLE
                                                    : PERF_EVENT_IOC_RESET;
  return ioctl(leader_fd, req, PERF_IOC_FLAG_GROUP) == 0 ? MCX_OK : MCX_EIO;
}

int mcx_port_perf_read_group(int leader_fd, uint64_t *words, size_t nwords)
{
  ssize_t n;
  do {
    n = read(leader_fd, words, nwords * sizeof *words);
  } while (n < 0 && errno == EINTR);
  if (n < 0)
    return errno == ENOSPC ? MCX_EMSGSIZE : MCX_EIO;
  if ((size_t)n < 3 * sizeof *words || (size_t)n < (3 + words[0]) * sizeof *words)
    return MCX_EIO;
  return MCX_OK;
}

int mcx_port_perf_mmap(int fd, void **page_out)
{
  long psz = sysconf(_SC_PAGESIZE);
  void *p = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    return MCX_EIO;
  *page_out = p;
  return MCX_OK;
}

void mcx_port_perf_munmap(void *page)
{
  if (page)
    munmap(page, (size_t)sysconf(_SC_PAGESIZE));
}

int mcx_port_perf_cap_rdpmc(const void *page)
{
  const struct perf_event_mmap_page *pc = page;
  return pc && pc->cap_user_rdpmc ? 1 : 0;
}

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t rdpmc(uint32_t counter)
{
  uint32_t lo, hi;
  __asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
  return (uint64_t)hi << 32 | lo;
}
#endif

/*
 * The kernel's seqlock on the user page (include/uapi/linux/perf_event.h,
 * "struct perf_event_mmap_page"): the kernel bumps pc->lock around every
 * update. A1: acquire load of lock before the fields; A2: acquire fence after
 * them so the re-check of lock is not hoisted above the field loads; the
 * partner is the kernel's smp_wmb()-ordered update of the page. Fields are
 * read through atomic views of the same (naturally aligned) words so the
 * compiler reloads them on every retry.
 */
#define LOAD32(f) mcx_load_relaxed((mcx_atomic_u32 *)(void *)&(f))
#define LOAD64(f) mcx_load_relaxed((mcx_atomic_u64 *)(void *)&(f))

int mcx_port_perf_read_user(const void *page, uint64_t *count, uint64_t *enabled,
                            uint64_t *running)
{
#if defined(__x86_64__) || defined(__i386__)
  struct perf_event_mmap_page *pc = (struct perf_event_mmap_page *)(uintptr_t)page;
  uint32_t seq, idx, width = 0;
  uint64_t cnt, en, run, cyc = 0, toff = 0;
  uint32_t tmult = 0;
  uint16_t tshift = 0;
  int cap_time, cap_rdpmc;
  do {
    seq = mcx_load_acquire((mcx_atomic_u32 *)(void *)&pc->lock); /* A1 */
    en = LOAD64(pc->time_enabled);
    run = LOAD64(pc->time_running);
    uint64_t caps = LOAD64(pc->capabilities);
    cap_rdpmc = (caps >> 2) & 1; /* bit 2: cap_user_rdpmc */
    cap_time = (caps >> 3) & 1;  /* bit 3: cap_user_time */
    idx = LOAD32(pc->index);
    cnt = LOAD64(pc->offset);
    if (cap_time && en != run) {
      cyc = mcx_port_tsc();
      toff = LOAD64(pc->time_offset);
      tmult = LOAD32(pc->time_mult);
      tshift = (uint16_t)pc->time_shift;
    }
    if (cap_rdpmc && idx) {
      width = (uint16_t)pc->pmc_width;
      uint64_t pmc = rdpmc(idx - 1);
      pmc <<= 64 - width;
      pmc = (uint64_t)((int64_t)pmc >> (64 - width)); /* sign-extend the counter's width */
      cnt += pmc;
    }
    mcx_fence_acquire(); /* A2: field loads above complete before the lock re-check */
  } while (mcx_load_relaxed((mcx_atomic_u32 *)(void *)&pc->lock) != seq);
  if (!cap_rdpmc)
    return MCX_ENOSYS;
  if (!idx)
    return MCX_EAGAIN;
  if (cap_time && en != run) {
    uint64_t quot = cyc >> tshift, rem = cyc & (((uint64_t)1 << tshift) - 1);
    uint64_t delta = toff + quot * tmult + ((rem * tmult) >> tshift);
    en += delta;
    run += delta;
  }
  *count = cnt;
  *enabled = en;
  *running = run;
  return MCX_OK;
#else
  (void)page, (void)count, (void)enabled, (void)running;
  return MCX_ENOSYS;
#endif
}
