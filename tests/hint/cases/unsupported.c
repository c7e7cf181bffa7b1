/* Acquires libmca has no hinted form for, and timeouts the combined call
 * cannot keep. */
#include <mcapi.h>
#include <mcx_sem.h>
#include <mrapi.h>

static mcx_event_t ev;
static mcx_pisem_t s;
static mcx_csem_t pool;

void mrapi_next(mrapi_mutex_hndl_t m)
{
  mrapi_key_t key;
  mrapi_status_t st;
  mcx_event_wait(&ev, MCX_SEM_INFINITE);
  mrapi_mutex_lock(m, &key, MRAPI_TIMEOUT_INFINITE, &st);
  mrapi_mutex_unlock(m, &key, &st);
}

void counting_after_message(mcapi_endpoint_t ep)
{
  int v;
  size_t got;
  mcapi_status_t st;
  mcapi_msg_recv(ep, &v, sizeof v, &got, &st);
  mcx_csem_acquire(&pool, MCX_SEM_INFINITE);
  mcx_csem_release(&pool);
}

void different_timeouts(void)
{
  mcx_event_wait(&ev, 50);
  mcx_pisem_lock(&s, MCX_SEM_INFINITE);
  mcx_pisem_unlock(&s);
}

void receive_with_lock_timeout(mcapi_endpoint_t ep)
{
  int v;
  size_t got;
  mcapi_status_t st;
  mcapi_msg_recv(ep, &v, sizeof v, &got, &st);
  mcx_pisem_lock(&s, 10);
  mcx_pisem_unlock(&s);
}

void inside_expression(void)
{
  if (mcx_event_wait(&ev, MCX_SEM_INFINITE) == MCX_SEM_OK)
    mcx_pisem_lock(&s, MCX_SEM_INFINITE);
  mcx_pisem_unlock(&s);
}
