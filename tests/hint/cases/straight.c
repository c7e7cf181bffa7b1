/* Straight-line code: a wait, then the acquire of the semaphore that
 * protects what the waiter touches next. */
#include <mcx_sem.h>

static mcx_event_t ready;
static mcx_pisem_t state_lock;
static mcx_csem_t slots;
static int state, seen;

static int scale(int v) { return 2 * v + 1; }

void consume_once(void)
{
  mcx_event_wait(&ready, MCX_SEM_INFINITE);
  mcx_pisem_lock(&state_lock, MCX_SEM_INFINITE);
  state++;
  mcx_pisem_unlock(&state_lock);
}

void consume_forever(volatile int *running)
{
  while (*running) {
    (void)mcx_event_wait(&ready, MCX_SEM_INFINITE);
    seen = scale(seen); /* local work between: runs holding the semaphore afterwards */
    (void)mcx_pisem_lock(&state_lock, MCX_SEM_INFINITE);
    state += seen;
    mcx_pisem_unlock(&state_lock);
  }
}

void take_slot(void)
{
  mcx_sem_status_t rc = mcx_event_wait(&ready, 100);
  mcx_csem_acquire(&slots, 100);
  if (rc == MCX_SEM_OK)
    state--;
  mcx_csem_release(&slots);
}

void nothing_follows(void)
{
  mcx_event_wait(&ready, MCX_SEM_INFINITE);
  state = 0;
}
