/* SPDX-License-Identifier: BSD-3-Clause */
/* The OS layer an OpenMCAPI 1.0 program (its test suite) expects from
 * OpenMCAPI's own headers (openmcapi.h and its per-OS header), written for
 * libmca's 1.0 layer: threads and mutexes on POSIX threads, the wire
 * helpers mcapi_put32/mcapi_get32, and the few implementation names the
 * suite's front end reads. Not part of the library: scripts/openmcapi-check.sh
 * builds it with the suite (docs/compat.md, "OpenMCAPI's functional tests"). */
#ifndef OPENMCAPI_SHIM_H
#define OPENMCAPI_SHIM_H

#ifndef MCX_API_1_0
#define MCX_API_1_0
#endif
#include <mcapi.h>

#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* Threads: an entry point takes and returns a pointer. */
#define MCAPI_THREAD_ENTRY(name) void *name(void *argv)
#define MCAPI_THREAD_PTR_ENTRY(name) void *(*name)(void *)
typedef pthread_t MCAPI_THREAD;
/* A service thread that ends returns from its entry. */
#define MCAPI_Cleanup_Task() ((void)0)

/* Mutexes. */
typedef pthread_mutex_t MCAPI_MUTEX;
#define MCAPI_Create_Mutex(m, name) ((void)(name), pthread_mutex_init((m), NULL))
#define MCAPI_Obtain_Mutex(m) pthread_mutex_lock(m)
#define MCAPI_Release_Mutex(m) pthread_mutex_unlock(m)

/* OpenMCAPI's build configuration (its openmcapi_cfg.h), as libmca has it:
 * the number of priorities (0 .. MCAPI_MAX_PRIORITY), a new endpoint's
 * priority (libmca's: the lowest, as OpenMCAPI's default configuration),
 * the largest message or packet. */
#define MCAPI_PRIO_COUNT (MCAPI_MAX_PRIORITY + 1)
#define MCAPI_DEFAULT_PRIO MCAPI_MAX_PRIORITY
#define MCAPI_MAX_DATA_LEN MCAPI_MAX_MSG_SIZE

/* OpenMCAPI reports a channel side opened before its connection exists as
 * MGC_MCAPI_ERR_NOT_CONNECTED (its own status, not a 1.0 one) and its
 * programs treat it as "opened, waiting for the connection". libmca
 * reports that open as started: MCAPI_SUCCESS in 1.0. The same value here,
 * so a program's checks for either take the path OpenMCAPI meant. */
#define MGC_MCAPI_ERR_NOT_CONNECTED MCAPI_SUCCESS

/* Wire helpers: a 32-bit value at a byte offset of a message, in host
 * order (both sides of a test run on one machine). */
static inline void mcapi_put32(unsigned char *buf, unsigned off, mcapi_uint32_t v)
{
  memcpy(buf + off, &v, sizeof v);
}
static inline mcapi_uint32_t mcapi_get32(const unsigned char *buf, unsigned off)
{
  mcapi_uint32_t v;
  memcpy(&v, buf + off, sizeof v);
  return v;
}

/* OpenMCAPI's node table, read by the front end to compare endpoint
 * counts before and after each test. libmca has no such table in the
 * process: the count stays 0, so that comparison never reports. */
typedef struct {
  unsigned mcapi_endpoint_count;
} MCAPI_NODE_DATA;
typedef struct {
  MCAPI_NODE_DATA mcapi_node_list[2];
} MCAPI_GLOBAL_DATA;
extern MCAPI_GLOBAL_DATA MCAPI_Global_Struct;
void mcapi_lock_node_data(void);
void mcapi_unlock_node_data(void);

#endif
