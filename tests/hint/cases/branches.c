/* if/else after the wait: unambiguous when every branch takes the same
 * semaphore first, refused otherwise. */
#include <mcx_sem.h>

static mcx_event_t cmd;
static mcx_pisem_t plant, log_lock;
static int mode, speed, heading, entries;

void same_semaphore(void)
{
  mcx_event_wait(&cmd, MCX_SEM_INFINITE);
  if (mode == 1) {
    mcx_pisem_lock(&plant, MCX_SEM_INFINITE);
    speed++;
    mcx_pisem_unlock(&plant);
  } else {
    mcx_pisem_lock(&plant, MCX_SEM_INFINITE);
    heading++;
    mcx_pisem_unlock(&plant);
  }
}

void different_semaphores(void)
{
  mcx_event_wait(&cmd, MCX_SEM_INFINITE);
  if (mode == 1) {
    mcx_pisem_lock(&plant, MCX_SEM_INFINITE);
    speed++;
    mcx_pisem_unlock(&plant);
  } else {
    mcx_pisem_lock(&log_lock, MCX_SEM_INFINITE);
    entries++;
    mcx_pisem_unlock(&log_lock);
  }
}

void one_branch(void)
{
  mcx_event_wait(&cmd, MCX_SEM_INFINITE);
  if (mode == 1) {
    mcx_pisem_lock(&plant, MCX_SEM_INFINITE);
    speed++;
    mcx_pisem_unlock(&plant);
  }
}
