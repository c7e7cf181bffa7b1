/* Other paths: a return, a label where other paths join, an acquire inside
 * a macro's do { } while (0), and a loop whose count is fixed but which
 * contains the acquire. */
#include <mcx_sem.h>

static mcx_event_t ev;
static mcx_pisem_t s;
static int n, stop;

#define LOCKED_INC()                                                                               \
  do {                                                                                             \
    mcx_pisem_lock(&s, MCX_SEM_INFINITE);                                                          \
    n++;                                                                                           \
    mcx_pisem_unlock(&s);                                                                          \
  } while (0)

void early_return(void)
{
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  if (stop)
    return;
  mcx_pisem_lock(&s, MCX_SEM_INFINITE);
  mcx_pisem_unlock(&s);
}

void joined(int retry)
{
  if (retry)
    goto again;
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
again:
  mcx_pisem_lock(&s, MCX_SEM_INFINITE);
  mcx_pisem_unlock(&s);
}

void in_macro(void)
{
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  LOCKED_INC();
}

void fixed_loop_with_acquire(void)
{
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  for (int i = 0; i < 3; i++) {
    mcx_pisem_lock(&s, MCX_SEM_INFINITE);
    n += i;
    mcx_pisem_unlock(&s);
  }
}
