/* The next semaphore depends on data: refused. */
#include <mcapi.h>
#include <mcx_sem.h>

static mcx_pisem_t channel_lock[4];
static mcx_pisem_t fixed_lock;
static mcx_event_t ev;
static int counts[4];

static mcx_pisem_t *lock_for(int kind) { return &channel_lock[kind & 3]; }

void by_message(mcapi_endpoint_t ep)
{
  int kind;
  size_t got;
  mcapi_status_t st;
  mcapi_msg_recv(ep, &kind, sizeof kind, &got, &st);
  mcx_pisem_lock(&channel_lock[kind & 3], MCX_SEM_INFINITE);
  counts[kind & 3]++;
  mcx_pisem_unlock(&channel_lock[kind & 3]);
}

void by_call(int kind)
{
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  mcx_pisem_lock(lock_for(kind), MCX_SEM_INFINITE);
  counts[0]++;
  mcx_pisem_unlock(lock_for(kind));
}

void by_pointer(mcx_pisem_t *s, mcx_pisem_t *other, int flip)
{
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  if (flip)
    s = other;
  mcx_pisem_lock(s, MCX_SEM_INFINITE);
  counts[1]++;
  mcx_pisem_unlock(s);
}

void by_stable_index(int kind)
{
  mcx_event_wait_then_lock(&ev, &channel_lock[kind], MCX_SEM_INFINITE);
  counts[2]++;
  mcx_pisem_unlock(&channel_lock[kind]);
}

void result_used(void)
{
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  if (mcx_pisem_lock(&fixed_lock, MCX_SEM_INFINITE) != MCX_SEM_OK)
    return;
  counts[3]++;
  mcx_pisem_unlock(&fixed_lock);
}
