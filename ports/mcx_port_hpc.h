/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_port_hpc.h
 * @brief What src/hpc needs from the OS: perf_event_open, the counters' user
 * page, CPUID, the time-stamp counter and a periodic ticker thread.
 * Implemented in ports/linux/perf*.c and ports/linux/cpuid*.c.
 *
 * Results follow src/common/mcx_err.h: 0 or a negative MCX_E* code. The perf
 * calls map errno once, here, so src/hpc never sees an errno:
 *   ENOENT, EOPNOTSUPP, ENODEV, ENOSYS   -> MCX_ENOSYS  (no such PMU/event here)
 *   EACCES, EPERM                        -> MCX_EPERM   (perf_event_paranoid, capabilities)
 *   ESRCH                                -> MCX_ENOENT  (no such thread)
 *   EINVAL, E2BIG and the rest           -> MCX_EINVAL  (the kernel rejects the encoding)
 */
#ifndef MCX_PORT_HPC_H
#define MCX_PORT_HPC_H

#include <stddef.h>
#include <stdint.h>

/** What one counter is; type/config are perf_event_attr's (stable kernel ABI). */
typedef struct mcx_port_perf_attr {
  uint32_t type;
  uint64_t config;
  uint64_t config1;
  int exclude_kernel; /**< 1: count user mode only */
  int disabled;       /**< 1: open stopped (a group leader); members follow the leader */
} mcx_port_perf_attr_t;

/**
 * perf_event_open(attr, tid, cpu, group_fd, CLOEXEC) with the group read
 * format (PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING).
 * @param tid 0 calling thread, >0 that thread, -1 every thread (needs cpu >= 0)
 * @param cpu -1 any CPU the thread runs on, >= 0 that CPU
 * @param group_fd -1 for a new leader
 * @retval 0 *fd_out holds the descriptor
 * @retval MCX_ENOSYS MCX_EPERM MCX_ENOENT MCX_EINVAL as in the file comment
 */
int mcx_port_perf_open(const mcx_port_perf_attr_t *attr, int32_t tid, int32_t cpu, int group_fd,
                       int *fd_out);
void mcx_port_perf_close(int fd);

enum mcx_port_perf_op { MCX_PORT_PERF_ENABLE, MCX_PORT_PERF_DISABLE, MCX_PORT_PERF_RESET };
/** ioctl on a leader and (PERF_IOC_FLAG_GROUP) all its members. @retval 0 @retval MCX_EIO */
int mcx_port_perf_ioctl(int leader_fd, enum mcx_port_perf_op op);

/**
 * Reads a group: words[0] = nr, [1] = time enabled, [2] = time running,
 * [3..3+nr) = values in the order the events joined.
 * @retval 0 @retval MCX_EIO read failed @retval MCX_EMSGSIZE buffer too small
 */
int mcx_port_perf_read_group(int leader_fd, uint64_t *words, size_t nwords);

/** Maps the event's user page (one page, read-only). @retval 0 @retval MCX_EIO */
int mcx_port_perf_mmap(int fd, void **page_out);
void mcx_port_perf_munmap(void *page);

/**
 * Reads a counter from user space through its mmap'ed page: seqlock on
 * pc->lock, rdpmc(pc->index - 1) + pc->offset, sign-extended to
 * pc_width, times from pc->time_enabled/running advanced by the TSC.
 * Calling context: only the thread the event counts (rdpmc reads this CPU).
 * @retval 0 values filled
 * @retval MCX_EAGAIN the event has no hardware counter now (index 0: a
 *         software event, or not scheduled) -> use read()
 * @retval MCX_ENOSYS the kernel does not allow rdpmc (cap_user_rdpmc = 0)
 */
int mcx_port_perf_read_user(const void *page, uint64_t *count, uint64_t *enabled,
                            uint64_t *running);
/** cap_user_rdpmc of a mapped page (0 or 1). */
int mcx_port_perf_cap_rdpmc(const void *page);

/* ---- CPU identification */
typedef struct mcx_port_cpuid {
  char vendor[13];      /**< "GenuineIntel", "AuthenticAMD", ... */
  unsigned family;      /**< display family (base + extended) */
  unsigned model;       /**< display model (base + extended << 4 when applicable) */
  unsigned stepping;
  int hypervisor;       /**< CPUID.1:ECX[31] */
  unsigned arch_perfmon_version; /**< Intel CPUID.0AH:EAX[7:0]; 0 when absent */
  char brand[49];
} mcx_port_cpuid_t;
/** @retval 0 @retval MCX_ENOSYS not an x86 CPU (fields zeroed) */
int mcx_port_cpuid(mcx_port_cpuid_t *out);

/** Time-stamp counter (x86 rdtsc); 0 on other architectures. */
uint64_t mcx_port_tsc(void);

/* ---- a periodic ticker in its own thread (timerfd) */
typedef struct mcx_port_ticker mcx_port_ticker_t;
/**
 * Starts a thread that calls fn(arg, expirations) every @p period_ns
 * (CLOCK_MONOTONIC timerfd; expirations > 1 when the thread was late).
 * @retval 0 @retval MCX_EINVAL period 0 @retval MCX_ENOMEM @retval MCX_EIO
 */
int mcx_port_ticker_start(mcx_port_ticker_t **out, uint64_t period_ns,
                          void (*fn)(void *arg, uint64_t expirations), void *arg);
/** Stops and joins the thread; fn is not running and will not run after it returns. */
void mcx_port_ticker_stop(mcx_port_ticker_t *t);
/** Kernel thread id of the ticker thread. */
uint32_t mcx_port_ticker_tid(const mcx_port_ticker_t *t);

#endif /* MCX_PORT_HPC_H */
