/* Calls between the wait and the acquire: allowed when they cannot block. */
#include <mcx_sem.h>
#include <string.h>
#include <unistd.h>

static mcx_event_t ev;
static mcx_pisem_t s;
static char copy[32], src[32];
static int n;

void log_line(const char *what); /* defined elsewhere: may block */

static void bump(int *x) { *x += 1; }
static void settle(void) { usleep(10); }
static void release_other(void) { mcx_pisem_unlock(&s); }

void pure_callee(void)
{
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  memcpy(copy, src, sizeof copy);
  bump(&n);
  mcx_pisem_lock(&s, MCX_SEM_INFINITE);
  mcx_pisem_unlock(&s);
}

void external_callee(void)
{
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  log_line("event");
  mcx_pisem_lock(&s, MCX_SEM_INFINITE);
  mcx_pisem_unlock(&s);
}

void blocking_callee(void)
{
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  settle();
  mcx_pisem_lock(&s, MCX_SEM_INFINITE);
  mcx_pisem_unlock(&s);
}

void syncing_callee(void)
{
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  release_other();
  mcx_pisem_lock(&s, MCX_SEM_INFINITE);
  mcx_pisem_unlock(&s);
}

void second_wait(void)
{
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  mcx_pisem_lock(&s, MCX_SEM_INFINITE);
  mcx_pisem_unlock(&s);
}
