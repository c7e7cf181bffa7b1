/*
 * Packet and scalar channels. Not implemented yet: every call reports
 * MCAPI_ERR_GENERAL (after the usual node check) and changes nothing. The
 * channel issue replaces this file.
 */
#include "api/api.h"

#define NOT_YET(ret)                  \
  do {                                \
    if (!mcapi_status)                \
      return ret;                     \
    REQUIRE_NODE(ret);                \
    SET(MCAPI_ERR_GENERAL);           \
    return ret;                       \
  } while (0)

MCX_API void mcapi_pktchan_connect_i(mcapi_endpoint_t send_endpoint,
                                     mcapi_endpoint_t receive_endpoint, mcapi_request_t *request,
                                     mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_pktchan_recv_open_i(mcapi_pktchan_recv_hndl_t *recv_handle,
                                       mcapi_endpoint_t receive_endpoint,
                                       mcapi_request_t *request, mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_pktchan_send_open_i(mcapi_pktchan_send_hndl_t *send_handle,
                                       mcapi_endpoint_t send_endpoint, mcapi_request_t *request,
                                       mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_pktchan_send_i(mcapi_pktchan_send_hndl_t send_handle, const void *buffer,
                                  size_t size, mcapi_request_t *request,
                                  mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_pktchan_send(mcapi_pktchan_send_hndl_t send_handle, const void *buffer,
                                size_t size, mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_pktchan_recv_i(mcapi_pktchan_recv_hndl_t receive_handle, void **buffer,
                                  mcapi_request_t *request, mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_pktchan_recv(mcapi_pktchan_recv_hndl_t receive_handle, void **buffer,
                                size_t *received_size, mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API mcapi_uint_t mcapi_pktchan_available(mcapi_pktchan_recv_hndl_t receive_handle,
                                             mcapi_status_t *mcapi_status) { NOT_YET(0); }
MCX_API void mcapi_pktchan_release(void *buffer, mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API mcapi_boolean_t mcapi_pktchan_release_test(void *buffer, mcapi_status_t *mcapi_status)
{
  NOT_YET(MCAPI_FALSE);
}
MCX_API void mcapi_pktchan_recv_close_i(mcapi_pktchan_recv_hndl_t receive_handle,
                                        mcapi_request_t *request, mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_pktchan_send_close_i(mcapi_pktchan_send_hndl_t send_handle,
                                        mcapi_request_t *request, mcapi_status_t *mcapi_status) { NOT_YET(); }

MCX_API void mcapi_sclchan_connect_i(mcapi_endpoint_t send_endpoint,
                                     mcapi_endpoint_t receive_endpoint, mcapi_request_t *request,
                                     mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_sclchan_recv_open_i(mcapi_sclchan_recv_hndl_t *receive_handle,
                                       mcapi_endpoint_t receive_endpoint,
                                       mcapi_request_t *request, mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_sclchan_send_open_i(mcapi_sclchan_send_hndl_t *send_handle,
                                       mcapi_endpoint_t send_endpoint, mcapi_request_t *request,
                                       mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_sclchan_send_uint64(mcapi_sclchan_send_hndl_t send_handle,
                                       mcapi_uint64_t dataword, mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_sclchan_send_uint32(mcapi_sclchan_send_hndl_t send_handle,
                                       mcapi_uint32_t dataword, mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_sclchan_send_uint16(mcapi_sclchan_send_hndl_t send_handle,
                                       mcapi_uint16_t dataword, mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_sclchan_send_uint8(mcapi_sclchan_send_hndl_t send_handle,
                                      mcapi_uint8_t dataword, mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API mcapi_uint64_t mcapi_sclchan_recv_uint64(mcapi_sclchan_recv_hndl_t receive_handle,
                                                 mcapi_status_t *mcapi_status) { NOT_YET(0); }
MCX_API mcapi_uint32_t mcapi_sclchan_recv_uint32(mcapi_sclchan_recv_hndl_t receive_handle,
                                                 mcapi_status_t *mcapi_status) { NOT_YET(0); }
MCX_API mcapi_uint16_t mcapi_sclchan_recv_uint16(mcapi_sclchan_recv_hndl_t receive_handle,
                                                 mcapi_status_t *mcapi_status) { NOT_YET(0); }
MCX_API mcapi_uint8_t mcapi_sclchan_recv_uint8(mcapi_sclchan_recv_hndl_t receive_handle,
                                               mcapi_status_t *mcapi_status) { NOT_YET(0); }
MCX_API mcapi_uint_t mcapi_sclchan_available(mcapi_sclchan_recv_hndl_t receive_handle,
                                             mcapi_status_t *mcapi_status) { NOT_YET(0); }
MCX_API void mcapi_sclchan_recv_close_i(mcapi_sclchan_recv_hndl_t receive_handle,
                                        mcapi_request_t *request, mcapi_status_t *mcapi_status) { NOT_YET(); }
MCX_API void mcapi_sclchan_send_close_i(mcapi_sclchan_send_hndl_t send_handle,
                                        mcapi_request_t *request, mcapi_status_t *mcapi_status) { NOT_YET(); }
