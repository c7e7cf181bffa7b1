/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libmca loaded with dlopen() after start-up (as Python's cffi loads it),
 * without GLIBC_TUNABLES: its initial-exec thread-local block must fit the
 * static TLS glibc keeps for such libraries, or dlopen() fails with "cannot
 * allocate memory in static TLS block". The program links no libmca: it
 * opens the library named by its argument, makes a node in a new thread
 * (a thread started after the load, whose TLS glibc lays out then) and in
 * the main thread, and sends a message between them.
 *
 *   dlopen_tls LIBMCA_SO
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcapi.h"

/* The library's own prototypes (mcapi.h), called through pointers. */
static __typeof__(&mcapi_initialize) init;
static __typeof__(&mcapi_finalize) fin;
static __typeof__(&mcapi_endpoint_create) create;
static __typeof__(&mcapi_endpoint_get) get;
static __typeof__(&mcapi_msg_send) send_;
static __typeof__(&mcapi_msg_recv) recv_;

#define DOMAIN 7
static int failures;
#define CHECK(c)                                                                                   \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                                 \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static void *sender(void *arg)
{
  (void)arg;
  mcapi_info_t info;
  mcapi_status_t st;
  init(DOMAIN, 2, NULL, NULL, &info, &st);
  CHECK(st == MCAPI_SUCCESS);
  if (st != MCAPI_SUCCESS)
    return NULL;
  mcapi_endpoint_t me = create(MCAPI_PORT_ANY, &st);
  CHECK(st == MCAPI_SUCCESS);
  mcapi_endpoint_t to = get(DOMAIN, 1, 5, MCA_INFINITE, &st);
  CHECK(st == MCAPI_SUCCESS);
  send_(me, to, "loaded late", 12, 1, &st);
  CHECK(st == MCAPI_SUCCESS);
  fin(&st);
  CHECK(st == MCAPI_SUCCESS);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: dlopen_tls LIBMCA_SO\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("FAIL dlopen: %s\n", dlerror());
    return 1;
  }
  init = (__typeof__(init))dlsym(lib, "mcapi_initialize");
  fin = (__typeof__(fin))dlsym(lib, "mcapi_finalize");
  create = (__typeof__(create))dlsym(lib, "mcapi_endpoint_create");
  get = (__typeof__(get))dlsym(lib, "mcapi_endpoint_get");
  send_ = (__typeof__(send_))dlsym(lib, "mcapi_msg_send");
  recv_ = (__typeof__(recv_))dlsym(lib, "mcapi_msg_recv");
  if (!init || !fin || !create || !get || !send_ || !recv_) {
    printf("FAIL dlsym: %s\n", dlerror());
    return 1;
  }
  mcapi_info_t info;
  mcapi_status_t st;
  init(DOMAIN, 1, NULL, NULL, &info, &st);
  CHECK(st == MCAPI_SUCCESS);
  mcapi_endpoint_t me = create(5, &st);
  CHECK(st == MCAPI_SUCCESS);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, sender, NULL) == 0);
  char buf[32] = {0};
  size_t n = 0;
  recv_(me, buf, sizeof buf, &n, &st);
  CHECK(st == MCAPI_SUCCESS && n == 12 && !strcmp(buf, "loaded late"));
  pthread_join(t, NULL);
  fin(&st);
  CHECK(st == MCAPI_SUCCESS);
  printf("%s: dlopen() after start-up, two nodes, one message\n", failures ? "FAIL" : "ok");
  return failures ? 1 : 0;
}
