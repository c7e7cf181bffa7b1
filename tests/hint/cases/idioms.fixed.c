/* Checked calls: the `wait != OK || acquire != OK` condition, calls under
 * `case` labels, and waits inside expressions. */
#include <mcx_sem.h>

static struct {
  mcx_event_t ev;
  mcx_pisem_t s;
  mcx_csem_t c;
  int kind, errors;
} X;

static void fail(void) { X.errors++; }

void checked(void)
{
  if (mcx_event_wait_then_lock(&X.ev, &X.s, MCX_SEM_INFINITE) != MCX_SEM_OK)
    fail();
  mcx_pisem_unlock(&X.s);
}

void by_kind(void)
{
  switch (X.kind) {
  case 0:
    mcx_event_wait_then_acquire(&X.ev, &X.c, MCX_SEM_INFINITE);
    mcx_csem_release(&X.c);
    break;
  case 1:
    if (mcx_event_wait(&X.ev, 10) != MCX_SEM_OK || mcx_csem_acquire(&X.c, 20) != MCX_SEM_OK)
      fail();
    break;
  default:
    break;
  }
}

void polled(void)
{
  while (mcx_event_wait(&X.ev, 0) == MCX_SEM_OK)
    X.errors = 0;
  if (mcx_event_wait(&X.ev, 0) == MCX_SEM_OK)
    mcx_pisem_lock(&X.s, MCX_SEM_INFINITE);
  mcx_pisem_unlock(&X.s);
}
