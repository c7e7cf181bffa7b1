/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * migrate_reference: a program written against the MCAPI specification the
 * way programs for the MCA reference implementation are written: standard
 * headers only, node attributes initialized and passed to mcapi_initialize,
 * MCA_INFINITE timeouts, mca_ types, statuses checked after every call.
 *
 * What to change to move such a program to libmca: nothing. Build it with
 *   cc prog.c $(pkg-config --cflags --libs mca)
 * or link mca::mca from CMake (find_package(mca)). The behaviour the
 * specification leaves open follows the specification by default; a program
 * that relies on what the reference implementation did there runs with
 * MCX_COMPAT=mca-2.0.3 in the environment (docs/compat.md lists the
 * differences).
 *
 *   example_migrate_reference     (exit 0 when both nodes exchanged their greetings)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <mcapi.h>

#define DOMAIN 1
#define NODE_A 10
#define NODE_B 20
#define PORT 1

#define CHECK(what)                                                                  \
  if (status != MCAPI_SUCCESS) {                                                     \
    char msg[MCAPI_MAX_STATUS_SIZE];                                                 \
    fprintf(stderr, "%s: %s\n", what, mcapi_display_status(status, msg, sizeof msg)); \
    return (void *)1;                                                                \
  }

static void *node(void *arg)
{
  mca_node_t me = (mca_node_t)(intptr_t)arg;
  mca_node_t other = me == NODE_A ? NODE_B : NODE_A;
  mcapi_node_attributes_t attributes;
  mcapi_info_t info;
  mcapi_status_t status;
  char greeting[32], reply[32];
  size_t received;

  mcapi_node_init_attributes(&attributes, &status);
  CHECK("node_init_attributes");
  mcapi_initialize(DOMAIN, me, &attributes, MCAPI_NULL, &info, &status);
  CHECK("initialize");
  mcapi_endpoint_t local = mcapi_endpoint_create(PORT, &status);
  CHECK("endpoint_create");
  mcapi_endpoint_t remote = mcapi_endpoint_get(DOMAIN, other, PORT, MCA_INFINITE, &status);
  CHECK("endpoint_get");
  snprintf(greeting, sizeof greeting, "hello from node %u", (unsigned)me);
  mcapi_msg_send(local, remote, greeting, strlen(greeting) + 1, MCAPI_MAX_PRIORITY, &status);
  CHECK("msg_send");
  mcapi_msg_recv(local, reply, sizeof reply, &received, &status);
  CHECK("msg_recv");
  printf("node %u got \"%s\" (%zu bytes)\n", (unsigned)me, reply, received);
  char expect[32];
  snprintf(expect, sizeof expect, "hello from node %u", (unsigned)other);
  int ok = strcmp(reply, expect) == 0;
  /* Both have received before either finalizes (finalize deletes the endpoint). */
  mcapi_msg_send(local, remote, "bye", 4, MCAPI_MAX_PRIORITY, &status);
  CHECK("msg_send bye");
  mcapi_msg_recv(local, reply, sizeof reply, &received, &status);
  CHECK("msg_recv bye");
  mcapi_finalize(&status);
  CHECK("finalize");
  return (void *)(intptr_t)!ok;
}

int main(void)
{
  pthread_t a, b;
  void *ra, *rb;
  pthread_create(&a, NULL, node, (void *)(intptr_t)NODE_A);
  pthread_create(&b, NULL, node, (void *)(intptr_t)NODE_B);
  pthread_join(a, &ra);
  pthread_join(b, &rb);
  return ra || rb;
}
