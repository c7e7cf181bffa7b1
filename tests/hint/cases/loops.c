/* Loops: a wait in a fixed-count loop with the acquire after it names the
 * semaphore on the last iteration only; variable loops are refused. */
#include <stdatomic.h>

#include <mcx_sem.h>

#define SAMPLES 4

static mcx_event_t sample_ready;
static mcx_pisem_t filter_lock;
static mcx_csem_t buffers;
static _Atomic int acc; /* read by tests/hint/loops_driver.c while a loop runs */
static int filtered;

void average(void)
{
  for (int i = 0; i < SAMPLES; i++) {
    mcx_event_wait(&sample_ready, MCX_SEM_INFINITE);
    acc++;
  }
  mcx_pisem_lock(&filter_lock, MCX_SEM_INFINITE);
  filtered = acc / SAMPLES;
  mcx_pisem_unlock(&filter_lock);
}

void average_into_buffer(void)
{
  int k;
  for (k = 1; k <= 3; ++k)
    mcx_event_wait(&sample_ready, MCX_SEM_INFINITE);
  mcx_csem_acquire(&buffers, MCX_SEM_INFINITE);
  filtered = acc;
  mcx_csem_release(&buffers);
}

void until_quiet(volatile int *more)
{
  while (*more) {
    mcx_event_wait(&sample_ready, MCX_SEM_INFINITE);
    acc++;
  }
  mcx_pisem_lock(&filter_lock, MCX_SEM_INFINITE);
  filtered = acc;
  mcx_pisem_unlock(&filter_lock);
}

void drain(int n)
{
  mcx_event_wait(&sample_ready, MCX_SEM_INFINITE);
  for (int i = 0; i < n; i++) {
    mcx_pisem_lock(&filter_lock, MCX_SEM_INFINITE);
    filtered += i;
    mcx_pisem_unlock(&filter_lock);
  }
}

/* For tests/hint/loops_driver.c, which runs average() in both forms. */
void loops_init(void)
{
  mcx_event_init(&sample_ready, 0);
  mcx_pisem_init(&filter_lock, 0);
  mcx_csem_init(&buffers, 1, 1, 0);
}
void loops_post(void) { mcx_event_post(&sample_ready); }
int loops_acc(void) { return acc; }
int loops_filtered(void) { return filtered; }
int loops_idle(void) { return mcx_pisem_owner(&filter_lock) == 0 && mcx_csem_value(&buffers) == 1; }
/* A sample left unconsumed (the event still posted)? */
int loops_leftover(void) { return mcx_event_wait(&sample_ready, 0) == MCX_SEM_OK; }
