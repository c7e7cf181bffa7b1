/* Macros and one level of wrapper functions around the wait and the acquire. */
#include <mcapi.h>
#include <mcx_sem.h>

static mcx_event_t tick;
static mcx_pisem_t state_lock;
static int state;

#define WAIT_TICK() mcx_event_wait(&tick, MCX_SEM_INFINITE)
#define LOCK(sem) mcx_pisem_lock(sem, MCX_SEM_INFINITE)
#define UNLOCK(sem) mcx_pisem_unlock(sem)

static void lock_state(void) { mcx_pisem_lock(&state_lock, MCX_SEM_INFINITE); }
static void take(mcx_pisem_t *sem) { mcx_pisem_lock(sem, MCX_SEM_INFINITE); }

void through_macros(void)
{
  mcx_event_wait_then_lock(&tick, &state_lock, MCX_SEM_INFINITE);
  state++;
  UNLOCK(&state_lock);
}

void through_wrapper(void)
{
  mcx_event_wait_then_lock(&tick, &state_lock, MCX_SEM_INFINITE);
  state++;
  mcx_pisem_unlock(&state_lock);
}

void through_wrapper_argument(void)
{
  mcx_event_wait_then_lock(&tick, &state_lock, MCX_SEM_INFINITE);
  state++;
  UNLOCK(&state_lock);
}
