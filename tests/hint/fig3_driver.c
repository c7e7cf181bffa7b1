/* SPDX-License-Identifier: BSD-3-Clause */
/* Runs the sensor-controller-actuator example (cases/fig3_sca.c, or its
 * rewritten form) the way `mca sem` runs its cells: the controller at
 * SCHED_FIFO 20, the sensor at 10, one filler at 1, all pinned to CPU 0;
 * context switches of sensor + controller per period from
 * getrusage(RUSAGE_THREAD). Prints "csw/period X"; exits 77 (skipped) when
 * SCHED_FIFO or pinning is refused. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

void sca_init(void);
void sca_sensor_period(int sample);
void sca_controller(int periods);
extern atomic_int controller_rounds;
extern int actuator_output;

enum { PRIO_CONTROLLER = 20, PRIO_SENSOR = 10, PRIO_FILL = 1 };

static int periods = 400;
static atomic_int controller_ready, stop;
static atomic_long controller_tid;
static long csw_sensor, csw_controller;

static long thread_csw(void)
{
  struct rusage ru;
  getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* Whether thread @p tid of this process is asleep ('S' in /proc/self/task/<tid>/stat). */
static int thread_asleep(long tid)
{
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 1; /* no /proc: do not wait */
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *p = strrchr(buf, ')');
  return p && p[1] == ' ' && p[2] == 'S';
}

static void *filler(void *arg)
{
  (void)arg;
  unsigned long n = 0;
  while (!atomic_load_explicit(&stop, memory_order_relaxed))
    if ((++n & 0xff) == 0)
      sched_yield();
  return NULL;
}

static void *controller(void *arg)
{
  (void)arg;
  long c0 = thread_csw();
  atomic_store(&controller_tid, (long)syscall(SYS_gettid));
  atomic_store(&controller_ready, 1);
  sca_controller(periods);
  csw_controller = thread_csw() - c0;
  return NULL;
}

static void *sensor(void *arg)
{
  (void)arg;
  while (!atomic_load(&controller_ready))
    usleep(100);
  /* Event: the controller is asleep in its first wait (it runs at a higher
   * priority on this CPU, so it only sleeps there). */
  while (!thread_asleep(atomic_load(&controller_tid)))
    usleep(100);
  long c0 = thread_csw();
  for (int i = 0; i < periods; i++) {
    sca_sensor_period(i);
    /* With SCHED_FIFO on one CPU the controller is done already. */
    for (int spin = 0; atomic_load_explicit(&controller_rounds, memory_order_acquire) < i + 1; spin++)
      if (spin < 1000)
        sched_yield();
      else
        usleep(50);
  }
  csw_sensor = thread_csw() - c0;
  return NULL;
}

static int start(pthread_t *t, void *(*fn)(void *), int prio)
{
  pthread_attr_t a;
  pthread_attr_init(&a);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  pthread_attr_setaffinity_np(&a, sizeof one, &one);
  struct sched_param sp = {.sched_priority = prio};
  pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
  pthread_attr_setschedpolicy(&a, SCHED_FIFO);
  pthread_attr_setschedparam(&a, &sp);
  int r = pthread_create(t, &a, fn, NULL);
  pthread_attr_destroy(&a);
  return r;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    periods = atoi(argv[1]);
  struct sched_param sp = {.sched_priority = PRIO_SENSOR};
  if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0) {
    printf("SKIP: SCHED_FIFO refused (needs CAP_SYS_NICE or an RLIMIT_RTPRIO)\n");
    return 77;
  }
  sp.sched_priority = 0;
  pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
  cpu_set_t all, one;
  pthread_getaffinity_np(pthread_self(), sizeof all, &all);
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) {
    printf("SKIP: pinning to CPU 0 refused\n");
    return 77;
  }
  if (sysconf(_SC_NPROCESSORS_ONLN) > 1) { /* the main thread only waits: off the measured CPU */
    cpu_set_t other;
    CPU_ZERO(&other);
    CPU_SET(1, &other);
    pthread_setaffinity_np(pthread_self(), sizeof other, &other);
  }
  sca_init();
  pthread_t f, c, s;
  if (start(&f, filler, PRIO_FILL) || start(&c, controller, PRIO_CONTROLLER) ||
      start(&s, sensor, PRIO_SENSOR)) {
    printf("SKIP: creating SCHED_FIFO threads refused\n");
    return 77;
  }
  pthread_join(s, NULL);
  pthread_join(c, NULL);
  atomic_store(&stop, 1);
  pthread_join(f, NULL);
  if (actuator_output != (periods - 1) / 2 + 1) {
    printf("FAIL: the actuator got %d, expected %d\n", actuator_output, (periods - 1) / 2 + 1);
    return 1;
  }
  printf("periods %d\ncsw/period %.3f\n", periods, (double)(csw_sensor + csw_controller) / periods);
  return 0;
}
