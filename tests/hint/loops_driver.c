/* SPDX-License-Identifier: BSD-3-Clause */
/* Runs the rewritten fixed-count loop of cases/loops.fixed.c (average()):
 * the wait names the semaphore on the last iteration only, so all four
 * samples are consumed, the semaphore is held once after the loop (a hint
 * on an earlier iteration would make the next one fail with DEADLOCK and the
 * count come out wrong), and it is free again at the end. Runs the original
 * loops.c the same way for comparison. Exit 0 on success. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void loops_init(void);
void loops_post(void);
int loops_acc(void);
int loops_filtered(void);
int loops_idle(void);
int loops_leftover(void);
void average(void);

static void *run_average(void *arg)
{
  (void)arg;
  average();
  return NULL;
}

/* Posts n samples, each once the previous one was consumed (the event is
 * auto-reset: a second post to a posted event would be lost). */
static int feed(int n)
{
  /* A ceiling that only a hang reaches: 20 s or more (each poll sleeps 100 us
   * or more) times MCX_TEST_TIMEOUT_SCALE. */
  const char *sc = getenv("MCX_TEST_TIMEOUT_SCALE");
  double scale = sc && atof(sc) > 0 ? atof(sc) : 1.0;
  long limit = (long)(200000 * scale);
  int base = loops_acc();
  for (int k = 0; k < n; k++) {
    loops_post();
    for (long spin = 0; loops_acc() < base + k + 1; spin++) {
      if (spin > limit)
        return -1;
      usleep(100);
    }
  }
  return 0;
}

int main(void)
{
  loops_init();
  pthread_t t;
  pthread_create(&t, NULL, run_average, NULL);
  if (feed(4) != 0) {
    printf("FAIL: average() did not consume 4 samples\n");
    return 1;
  }
  pthread_join(t, NULL);
  int left = loops_leftover();
  if (loops_filtered() != 1 || !loops_idle() || left) {
    printf("FAIL: average(): filtered %d (expected 1), semaphores idle %d, a sample left %d\n",
           loops_filtered(), loops_idle(), left);
    return 1;
  }
  printf("fixed-count loop: ok\n");
  return 0;
}
