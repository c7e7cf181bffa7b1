/* MCAPI receives followed by an acquire: message, packet and scalar forms. */
#include <mcapi.h>
#include <mcx_sem.h>

static mcx_pisem_t table_lock;
static uint64_t table[16];
static size_t last_size;

void on_message(mcapi_endpoint_t ep)
{
  char buf[64];
  size_t got;
  mcapi_status_t st;
  mcx_msg_recv_then_lock(ep, buf, sizeof buf, &got, &table_lock, &st);
  table[0] = (uint64_t)got;
  mcx_pisem_unlock(&table_lock);
}

void on_packet(mcapi_pktchan_recv_hndl_t h)
{
  void *pkt;
  size_t size;
  mcapi_status_t st;
  mcx_pktchan_recv_then_lock(h, &pkt, &size, &table_lock, &st);
  last_size = size;
  mcx_pisem_unlock(&table_lock);
  mcapi_pktchan_release(pkt, &st);
}

void on_scalar(mcapi_sclchan_recv_hndl_t h)
{
  mcapi_status_t st;
  uint64_t v;
  mcx_sclchan_recv_uint64_then_lock(h, &v, &table_lock, &st);
  table[1] = v;
  mcx_pisem_unlock(&table_lock);
}

void on_scalar32(mcapi_sclchan_recv_hndl_t h)
{
  mcapi_status_t st;
  uint32_t v;
  mcx_sclchan_recv_uint32_then_lock(h, &v, &table_lock, &st);
  table[2] = v;
  mcx_pisem_unlock(&table_lock);
}

void on_scalar_converted(mcapi_sclchan_recv_hndl_t h)
{
  mcapi_status_t st;
  uint64_t v = mcapi_sclchan_recv_uint8(h, &st);
  mcx_pisem_lock(&table_lock, MCX_SEM_INFINITE);
  table[3] = v;
  mcx_pisem_unlock(&table_lock);
}
