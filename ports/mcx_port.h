/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_port.h
 * @brief What libmca needs from the operating system. Implemented in
 * ports/posix (portable POSIX) and ports/linux (futex, affinity), and for
 * Windows in ports/win32; nothing else in the tree includes an OS header.
 * docs/porting.md lists every call a port provides and the tests that prove it.
 *
 * Results follow src/common/mcx_err.h: 0 or a negative MCX_E* code.
 */
#ifndef MCX_PORT_H
#define MCX_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "common/mcx_atomic.h"

#define MCX_NO_DEADLINE UINT64_MAX

/* ---- time */
/** Monotonic clock in nanoseconds. */
uint64_t mcx_port_now_ns(void);
/** Deadline for a timeout in ms; MCX_NO_DEADLINE for ~0. */
uint64_t mcx_port_deadline_ms(uint32_t timeout_ms);
/** Sleeps for @p ns nanoseconds. */
void mcx_port_sleep_ns(uint64_t ns);

/* ---- futex: works on memory shared between processes (shared=1) or private (0) */
/**
 * Sleeps while *addr == expected, until woken or @p deadline_ns (monotonic,
 * MCX_NO_DEADLINE = forever).
 * @return 0 woken or value changed, MCX_ETIMEDOUT, MCX_EINTR.
 */
int mcx_port_futex_wait(mcx_atomic_u32 *addr, uint32_t expected, uint64_t deadline_ns, int shared);
/** Wakes up to @p n waiters on @p addr; returns how many were woken. */
int mcx_port_futex_wake(mcx_atomic_u32 *addr, int n, int shared);
/** Futex system calls the calling thread made through the two calls above. */
uint64_t mcx_port_futex_calls(void);

/* ---- asymmetric barrier (Linux: membarrier(2))
 *
 * A Dekker-style hand-off (publish, then look for a sleeper / announce, then
 * re-check) needs a full barrier on both sides. With an asymmetric barrier
 * the frequent side (the notifier on the data path) orders its two accesses
 * with a compiler barrier only, and the rare side (a thread about to sleep)
 * calls mcx_port_heavy_barrier(), which makes every running thread of every
 * registered process execute a full barrier. */
/** 1 when this process is registered, so its notifiers may skip the fence;
 * 0: they fence (kernel without membarrier, qemu-user, other systems). Set at
 * load and again in a fork child (the registration is not inherited). */
extern mcx_atomic_u32 mcx_port_asym_light;
/** The heavy side. @return 0, or MCX_ENOSYS when no process can be using
 * the light side (nothing to pair with). */
int mcx_port_heavy_barrier(void);

/* ---- scheduling */
void mcx_port_yield(void);
/** The CPU's spin-wait hint (x86 pause). */
static inline void mcx_port_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#endif
}
/** Number of online CPUs. */
int mcx_port_ncpus(void);
/** Pins the calling thread to @p cpu (-1: all CPUs). */
int mcx_port_pin_self(int cpu);
/** Kernel thread id of the caller. */
uint32_t mcx_port_tid(void);
/** Process id of the caller. */
uint32_t mcx_port_pid(void);
/** Ends the calling process at once, as kill -9 would (fault injection in tests). */
void mcx_port_kill_self(void);
/** Whether process @p pid is alive. */
int mcx_port_pid_alive(uint32_t pid);

/* ---- memory */
/** Reserves @p size bytes of zeroed memory (pages allocated on first touch). */
void *mcx_port_map_anon(size_t size);
void mcx_port_unmap(void *p, size_t size);

/* ---- what the system is (what reports record: mca's JSON "platform", "os", "arch") */
typedef struct mcx_port_sysinfo {
  char platform[32]; /**< "linux", "windows", "windows (wine)": the OS the program runs on */
  char os[128];      /**< its name and release, e.g. "Linux 6.1.0-18-amd64", "Windows 10.0.19045" */
  char arch[32];     /**< the machine, e.g. "x86_64", "aarch64" */
} mcx_port_sysinfo_t;
/** Fills @p out (every field NUL-terminated; "unknown" for what cannot be read). */
void mcx_port_sysinfo(mcx_port_sysinfo_t *out);

/* ---- environment and diagnostics */
/** getenv(). */
const char *mcx_port_getenv(const char *name);
/** Writes a diagnostic line to stderr. */
#if defined(__MINGW32__)
/* MinGW's printf archetype is the Microsoft one; libmca builds with the C99
 * stdio (__USE_MINGW_ANSI_STDIO), which gnu_printf describes. */
void mcx_port_log(const char *fmt, ...) __attribute__((format(gnu_printf, 1, 2)));
#else
void mcx_port_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif

#endif /* MCX_PORT_H */
