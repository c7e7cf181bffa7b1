/* SPDX-License-Identifier: BSD-3-Clause */
/* The OS layer of OpenMCAPI's test suite (what its support_suite/linux
 * file gives: main, MCAPID_Create_Thread, MCAPID_Cleanup, MCAPID_Sleep,
 * MCAPID_Time) and the names of openmcapi_shim/openmcapi.h, for libmca's
 * MCAPI 1.0 layer. Built by scripts/openmcapi-check.sh, not by the test
 * suite: the programs it serves are not in this tree.
 *
 * With OMCAPI_SHIM_IDLE_MAIN defined, the main thread runs at SCHED_IDLE
 * once the program's start function has created its threads' first
 * services: the suite's back end ends its start function in an endless
 * empty loop, which then takes only a core nobody else wants. Threads made
 * by MCAPID_Create_Thread keep the normal policy. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "openmcapi.h"
#include "support_suite/mcapid_support.h"

extern int mcapi_test_start(int argc, char *argv[]);

MCAPI_GLOBAL_DATA MCAPI_Global_Struct;
static pthread_mutex_t node_data_lock = PTHREAD_MUTEX_INITIALIZER;

void mcapi_lock_node_data(void)
{
  pthread_mutex_lock(&node_data_lock);
}
void mcapi_unlock_node_data(void)
{
  pthread_mutex_unlock(&node_data_lock);
}

static void finalize_at_exit(void)
{
  mcapi_status_t status;
  mcapi_finalize(&status);
}

static void on_signal(int sig)
{
  /* exit() runs finalize_at_exit: the node leaves its domain. */
  exit(128 + sig);
}

int main(int argc, char *argv[])
{
  atexit(finalize_at_exit);
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGQUIT, &sa, NULL);
  sigaction(SIGABRT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
#ifdef OMCAPI_SHIM_IDLE_MAIN
  struct sched_param sp = {0};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
#endif
  return mcapi_test_start(argc, argv);
}

mcapi_status_t MCAPID_Create_Thread(MCAPI_THREAD_PTR_ENTRY(thread_entry),
                                    MCAPID_STRUCT *mcapi_struct)
{
  pthread_attr_t attr;
  struct sched_param sp = {0};
  mcapi_struct->state = -1;
  pthread_attr_init(&attr);
  /* Service threads run at the normal policy whatever main's is. */
  pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
  pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
  pthread_attr_setschedparam(&attr, &sp);
  int rc = pthread_create(&mcapi_struct->task_ptr, &attr, thread_entry, mcapi_struct);
  pthread_attr_destroy(&attr);
  mcapi_struct->status = rc ? MCAPI_ERR_GENERAL : MCAPI_SUCCESS;
  return mcapi_struct->status;
}

void MCAPID_Cleanup(MCAPID_STRUCT *mcapi_struct)
{
  mcapi_delete_endpoint(mcapi_struct->local_endp, &mcapi_struct->status);
}

void MCAPID_Sleep(unsigned ms)
{
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

unsigned long MCAPID_Time(void)
{
  return (unsigned long)time(NULL);
}
