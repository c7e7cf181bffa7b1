/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mcx_hpc.h
 * @brief Hardware performance counters and a coherence monitor (libmca extension).
 *
 * Counters come from Linux perf_event_open and nothing else. An event is
 * named ("cycles", "context-switches", "EXT_SNOOP.ALL_AGENTS.HITM",
 * "raw:0x2877") and probed by opening it: each ends up OK, NOT_SUPPORTED,
 * NO_PERMISSION or INVALID, and a figure built on an event that is not OK is
 * "n/a", never a zero. A group counts its events together for one thread,
 * another thread or a CPU; reads give raw and multiplexing-scaled values.
 * A monitor samples a group every period in its own thread and calls a
 * callback when an event's rate per period crosses a threshold. A mock
 * backend replays scripted values so all of this is testable on any machine.
 *
 * Results: functions returning int give 0 (or an index >= 0 where said) or a
 * negative libmca error code (mcx_hpc_strerror() names it):
 *   -3 invalid argument, -5 out of memory/slots, -7 no such event/thread,
 *   -8 no permission, -12 busy (already enabled/started), -16 not supported
 *   here, -17 an OS call failed.
 *
 * Concurrency: a group is used by one thread at a time (the monitor owns its
 * group between start and stop). Event tables and the CPU description are
 * immutable and MT-safe.
 */
#ifndef MCX_HPC_H
#define MCX_HPC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Events per group. */
#define MCX_HPC_MAX_EVENTS 24
/** Longest event name, with the NUL. */
#define MCX_HPC_NAME_MAX 48
/** The monitor's default period: 10 ms, as in the paper. */
#define MCX_HPC_DEFAULT_PERIOD_NS 10000000u

/** Outcome of probing (opening) one event. */
typedef enum mcx_hpc_status {
  MCX_HPC_OK = 0,            /**< opened and counting */
  MCX_HPC_NOT_SUPPORTED = 1, /**< no such PMU or event on this CPU / kernel / VM */
  MCX_HPC_NO_PERMISSION = 2, /**< perf_event_paranoid or missing CAP_PERFMON */
  MCX_HPC_INVALID = 3,       /**< unknown name, malformed code, or the kernel rejects the encoding */
} mcx_hpc_status_t;

/** What an event counts. */
typedef enum mcx_hpc_class {
  MCX_HPC_CLASS_HARDWARE = 0,  /**< generic hardware event (PMU) */
  MCX_HPC_CLASS_SOFTWARE = 1,  /**< kernel software event: works without a PMU */
  MCX_HPC_CLASS_COHERENCE = 2, /**< model-specific snoop / cross-core fill event */
  MCX_HPC_CLASS_RAW = 3,       /**< raw code given by hand */
} mcx_hpc_class_t;

/** perf_event_attr.type values (kernel ABI, include/uapi/linux/perf_event.h). */
enum {
  MCX_HPC_TYPE_HARDWARE = 0,
  MCX_HPC_TYPE_SOFTWARE = 1,
  MCX_HPC_TYPE_HW_CACHE = 3,
  MCX_HPC_TYPE_RAW = 4,
};

/** Processor families with coherence-event tables. */
typedef enum mcx_hpc_uarch {
  MCX_HPC_UARCH_UNKNOWN = 0,
  MCX_HPC_UARCH_INTEL_CORE2,   /**< Merom/Penryn/Dunnington (the paper's Q9550) */
  MCX_HPC_UARCH_INTEL_SKL_ICL, /**< Skylake .. Ice Lake (client and server) */
  MCX_HPC_UARCH_INTEL_SPR,     /**< Sapphire Rapids, Emerald Rapids */
  MCX_HPC_UARCH_AMD_ZEN3,
  MCX_HPC_UARCH_AMD_ZEN4,
  MCX_HPC_UARCH_COUNT
} mcx_hpc_uarch_t;

/** The processor, from CPUID. */
typedef struct mcx_hpc_cpu {
  char vendor[13];
  unsigned family, model, stepping;
  int hypervisor; /**< 1 in a virtual machine */
  mcx_hpc_uarch_t uarch;
  char brand[49];
} mcx_hpc_cpu_t;

/** One named event. Tables of these are static and immutable. */
typedef struct mcx_hpc_event {
  const char *name;
  uint32_t type;   /**< MCX_HPC_TYPE_* */
  uint64_t config; /**< perf config: generic id, or raw code (Intel: umask<<8|event; AMD adds event[11:8]<<32) */
  mcx_hpc_class_t cls;
  mcx_hpc_uarch_t uarch; /**< family a COHERENCE event belongs to, UNKNOWN for the others */
  unsigned flags;        /**< MCX_HPC_EV_* */
  const char *description;
  const char *source; /**< where the encoding comes from */
} mcx_hpc_event_t;

/** Event flag: counts in the "coherence events" total of mcx_hpc_derive(). */
#define MCX_HPC_EV_COHERENCE_SUM 1u
/** Event flag: a time in nanoseconds (task-clock), printed as ns. */
#define MCX_HPC_EV_TIME_NS 2u

/** One counter in a sample. */
typedef struct mcx_hpc_value {
  uint64_t raw;        /**< counted while running */
  double scaled;       /**< raw * enabled / running (multiplexing) */
  uint64_t enabled_ns; /**< time the event was enabled */
  uint64_t running_ns; /**< time it was on a counter */
  int valid;           /**< 0: the event is not OK, or never ran -> figures are "n/a" */
} mcx_hpc_value_t;

/** A read of a whole group. */
typedef struct mcx_hpc_sample {
  unsigned n;   /**< events in the group */
  uint64_t t_ns; /**< when it was taken (monotonic; the script's time for the mock) */
  mcx_hpc_value_t v[MCX_HPC_MAX_EVENTS];
} mcx_hpc_sample_t;

typedef struct mcx_hpc_group mcx_hpc_group_t;

/* ------------------------------------------------------------------ CPU and event tables */

/** Identifies the processor. MT-safe. @retval 0 success @retval -16 not x86 (uarch UNKNOWN) */
int mcx_hpc_cpu_detect(mcx_hpc_cpu_t *cpu);
/** "Intel Core 2", "AMD Zen 4", ... */
const char *mcx_hpc_uarch_name(mcx_hpc_uarch_t u);
/**
 * The events of one table: UNKNOWN gives the generic and software events,
 * a family its coherence events. @return the table, *n its length.
 */
const mcx_hpc_event_t *mcx_hpc_event_table(mcx_hpc_uarch_t u, size_t *n);
/**
 * Resolves a name: a generic or software event (perf's spelling and ours),
 * a coherence event of any family, "raw:0xCODE", "raw:0xCODE:0xCONFIG1" or
 * perf's "rCODE". Names are case-insensitive. ev->name points into the
 * static tables, or for raw codes into @p namebuf (the caller's).
 * @param name the event name
 * @param ev receives the event
 * @param namebuf storage for the canonical name ev->name points to
 * @param namelen capacity of @p namebuf
 * @param errlen capacity of @p err
 * @param err  NULL or a buffer for a one-line reason on failure
 * @retval 0   *ev filled
 * @retval -3  malformed raw code (err says why)
 * @retval -7  unknown name (err says so)
 */
int mcx_hpc_event_parse(const char *name, mcx_hpc_event_t *ev, char *namebuf, size_t namelen,
                        char *err, size_t errlen);
/** "OK", "NOT_SUPPORTED", "NO_PERMISSION", "INVALID". */
const char *mcx_hpc_status_name(mcx_hpc_status_t s);
/** Name of a negative libmca error code. */
const char *mcx_hpc_strerror(int err);

/**
 * Probes one event by opening it (then closing it) for @p tid / @p cpu as a
 * group would. A coherence event of another family is NOT_SUPPORTED without
 * opening (its code would count something else here). MT-safe.
 */
mcx_hpc_status_t mcx_hpc_probe(const char *name, int32_t tid, int32_t cpu);

/* ------------------------------------------------------------------ groups */

/**
 * Creates an empty group.
 * @param g receives the group
 * @param tid 0 the calling thread, >0 that thread (kernel tid), -1 all threads on @p cpu
 * @param cpu -1 wherever the thread runs, >=0 that CPU (tid -1 needs permission)
 * @retval 0 success @retval -3 tid -1 without a cpu @retval -5 out of memory or slots
 */
int mcx_hpc_group_create(mcx_hpc_group_t **g, int32_t tid, int32_t cpu);

/** A scripted step of the mock backend: cumulative values at time t_ns. */
typedef struct mcx_hpc_mock_step {
  uint64_t t_ns;
  uint64_t values[MCX_HPC_MAX_EVENTS]; /**< by index of mcx_hpc_group_add */
  uint64_t enabled_ns, running_ns;     /**< both 0: not multiplexed (enabled = running = t_ns) */
} mcx_hpc_mock_step_t;

/** The mock's script; it must outlive the group. */
typedef struct mcx_hpc_mock {
  const mcx_hpc_mock_step_t *steps; /**< read k returns steps[k]; the last repeats */
  size_t nsteps;
  const char *const *not_supported; /**< NULL-terminated names probed NOT_SUPPORTED, or NULL */
  const char *const *no_permission; /**< NULL-terminated names probed NO_PERMISSION, or NULL */
} mcx_hpc_mock_t;

/** Creates a group over the mock backend (no OS calls). @retval 0 success @retval -3 bad argument @retval -5 out of memory or slots */
int mcx_hpc_group_create_mock(mcx_hpc_group_t **g, const mcx_hpc_mock_t *script);

/**
 * Adds (and so probes) an event. An event that does not open stays in the
 * group with its status, so its figures print as "n/a".
 * Hardware and software events that the kernel refuses to count in kernel
 * mode are retried user-only (flag visible with mcx_hpc_group_user_only()).
 * @param g the group
 * @param name the event name (as mcx_hpc_event_parse())
 * @param status NULL or where the probe's outcome goes (also on errors)
 * @return the event's index (>= 0) whatever its status
 * @retval -7 unknown name  @retval -3 malformed code  @retval -5 group full
 * @retval -12 the group is enabled (add before enabling)
 * @pre the group is not enabled
 */
int mcx_hpc_group_add(mcx_hpc_group_t *g, const char *name, mcx_hpc_status_t *status);

/**
 * The default group for @p tid (0: caller): generic hardware events,
 * software events and the coherence events of this CPU; only those that
 * open are kept (mcx_hpc_group_skipped() lists the others and why).
 * @retval 0 success @retval -5 out of memory or slots @retval -16 no event opens at all
 */
int mcx_hpc_group_open_default(mcx_hpc_group_t **g, int32_t tid);

/** Closes every event and frees the group. NULL is ignored. */
void mcx_hpc_group_close(mcx_hpc_group_t *g);

/** Starts / stops / zeroes all events of the group together. @retval 0 success @retval -17 an OS call failed */
int mcx_hpc_group_enable(mcx_hpc_group_t *g);
int mcx_hpc_group_disable(mcx_hpc_group_t *g);
int mcx_hpc_group_reset(mcx_hpc_group_t *g);

/** Reads every event with read(2) (any target). @retval 0 success @retval -17 an OS call failed */
int mcx_hpc_group_read(mcx_hpc_group_t *g, mcx_hpc_sample_t *s);
/**
 * Reads through the mmap'ed user page with rdpmc when the kernel allows it
 * for every hardware event (cap_user_rdpmc, event on a counter, target is the
 * caller); falls back to mcx_hpc_group_read() otherwise.
 * @pre called by the thread the group counts (tid 0 at creation)
 */
int mcx_hpc_group_read_fast(mcx_hpc_group_t *g, mcx_hpc_sample_t *s);
/** "rdpmc" when read_fast avoids the system call, else "read". */
const char *mcx_hpc_group_read_path(const mcx_hpc_group_t *g);

/** Events in the group. */
unsigned mcx_hpc_group_size(const mcx_hpc_group_t *g);
/** Name / status / class of event @p i (NULL / INVALID for a bad index). */
const char *mcx_hpc_group_name(const mcx_hpc_group_t *g, unsigned i);
mcx_hpc_status_t mcx_hpc_group_status(const mcx_hpc_group_t *g, unsigned i);
mcx_hpc_class_t mcx_hpc_group_class(const mcx_hpc_group_t *g, unsigned i);
/** 1 if event @p i counts user mode only (the kernel refused kernel mode). */
int mcx_hpc_group_user_only(const mcx_hpc_group_t *g, unsigned i);
/** Index of the event called @p name. @retval >=0 the index @retval -7 no such event */
int mcx_hpc_group_find(const mcx_hpc_group_t *g, const char *name);
/** Events left out of a default group: name and status of the @p i-th. @retval 0 success @retval -7 past the end */
int mcx_hpc_group_skipped(const mcx_hpc_group_t *g, unsigned i, const char **name,
                          mcx_hpc_status_t *status);

/* ------------------------------------------------------------------ values and derived metrics */

/** out = b - a per event (valid only when valid in both), t_ns likewise. */
void mcx_hpc_sample_delta(const mcx_hpc_sample_t *a, const mcx_hpc_sample_t *b,
                          mcx_hpc_sample_t *out);

/** A derived figure: valid 0 means "n/a" (an input is missing or zero). */
typedef struct mcx_hpc_metric {
  double value;
  int valid;
} mcx_hpc_metric_t;

/** The paper's figures over one interval (a delta sample). */
typedef struct mcx_hpc_derived {
  mcx_hpc_metric_t cpi;                 /**< cycles / instructions */
  mcx_hpc_metric_t coherence_pki;       /**< coherence events per 1000 instructions */
  mcx_hpc_metric_t coherence_per_item;  /**< coherence events per item exchanged */
  mcx_hpc_metric_t per_item[MCX_HPC_MAX_EVENTS];   /**< each event per item */
  mcx_hpc_metric_t per_period[MCX_HPC_MAX_EVENTS]; /**< each event per period (10 ms by default) */
} mcx_hpc_derived_t;

/**
 * Computes the derived figures of @p delta for @p items items in the group's
 * event order. @p period_ns 0 means 10 ms. @retval 0 success @retval -3 bad argument
 */
int mcx_hpc_derive(const mcx_hpc_group_t *g, const mcx_hpc_sample_t *delta, uint64_t items,
                   uint64_t period_ns, mcx_hpc_derived_t *out);

/** num/den * scale, "n/a" (valid 0) when either is invalid or den is 0. */
mcx_hpc_metric_t mcx_hpc_ratio(const mcx_hpc_value_t *num, const mcx_hpc_value_t *den, double scale);

/** Prints a metric ("%.*g" or "n/a") into @p buf. @return buf */
char *mcx_hpc_format_metric(mcx_hpc_metric_t m, char *buf, size_t len);

/**
 * One line with every event of @p delta per item:
 * "task-clock=812 ns/item context-switches=0.0003/item cycles=n/a(NOT_SUPPORTED) ..."
 * (times in ns, the rest as counts). @return characters written (snprintf rules)
 */
int mcx_hpc_format_per_item(const mcx_hpc_group_t *g, const mcx_hpc_sample_t *delta,
                            uint64_t items, char *buf, size_t len);

/* ------------------------------------------------------------------ cost of the interface */

/** What configuring and reading counters costs here (medians). */
typedef struct mcx_hpc_cost {
  double open_ns;         /**< open + enable one event (the "configure" step) */
  double enable_disable_ns; /**< one enable + disable ioctl pair on a group */
  double read_ns;         /**< mcx_hpc_group_read() of the measured group */
  double read_fast_ns;    /**< mcx_hpc_group_read_fast() of the measured group */
  double read_tsc;        /**< read_ns in TSC ticks */
  double read_fast_tsc;
  unsigned events;        /**< events in the measured group */
  const char *fast_path;  /**< "rdpmc" or "read" */
} mcx_hpc_cost_t;

/**
 * Measures the costs with @p iterations repetitions on the caller's default
 * group. @retval 0 success @retval -16 nothing opens
 */
int mcx_hpc_measure_cost(unsigned iterations, mcx_hpc_cost_t *out);

/* ------------------------------------------------------------------ periodic monitor */

/** One threshold: event @p event crossing @p per_period events per period. */
typedef struct mcx_hpc_threshold {
  unsigned event;
  double per_period;
} mcx_hpc_threshold_t;

/** What the callback gets. */
typedef struct mcx_hpc_alert {
  unsigned event;         /**< index in the group */
  const char *name;
  double value;           /**< events in this period (normalized to period_ns) */
  double threshold;
  int rising;             /**< 1 crossed upwards, 0 fell back below */
  uint64_t period;        /**< period number, from 1 */
  int32_t tid;            /**< the group's target thread */
  const mcx_hpc_sample_t *per_period; /**< every event's value this period (scaled field) */
} mcx_hpc_alert_t;

typedef void (*mcx_hpc_alert_fn)(const mcx_hpc_alert_t *alert, void *user);

typedef struct mcx_hpc_monitor_config {
  uint64_t period_ns; /**< 0: MCX_HPC_DEFAULT_PERIOD_NS */
  const mcx_hpc_threshold_t *thresholds;
  unsigned nthresholds;
  mcx_hpc_alert_fn on_alert; /**< runs in the monitor's thread (or the caller of step) */
  void *user;
} mcx_hpc_monitor_config_t;

typedef struct mcx_hpc_monitor mcx_hpc_monitor_t;

/**
 * Creates a monitor over @p g (which it enables). The group must count a
 * thread other than the monitor's (tid > 0) or a CPU, or be a mock.
 * @retval 0 success @retval -3 bad threshold index or config @retval -5 out of memory or slots
 */
int mcx_hpc_monitor_create(mcx_hpc_monitor_t **m, mcx_hpc_group_t *g,
                           const mcx_hpc_monitor_config_t *cfg);
/**
 * Takes one sample now, computes the period's values and fires crossings.
 * The monitor thread calls this every period; tests call it directly.
 * @retval 0 success @retval -17 the read failed
 * @pre the monitor is not started (or called from its own thread)
 */
int mcx_hpc_monitor_step(mcx_hpc_monitor_t *m);
/** Starts the periodic thread. @retval 0 success @retval -12 already started @retval -17 an OS call failed */
int mcx_hpc_monitor_start(mcx_hpc_monitor_t *m);
/** Stops it; no callback runs after it returns. */
void mcx_hpc_monitor_stop(mcx_hpc_monitor_t *m);
/** Periods completed and alerts fired so far. MT-safe. */
uint64_t mcx_hpc_monitor_periods(const mcx_hpc_monitor_t *m);
uint64_t mcx_hpc_monitor_alerts(const mcx_hpc_monitor_t *m);
/** Stops it if running and frees it (not the group). */
void mcx_hpc_monitor_destroy(mcx_hpc_monitor_t *m);

#ifdef __cplusplus
}
#endif

#endif /* MCX_HPC_H */
