/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pipeline: three processes in one MCAPI domain, each a node: a source makes
 * records, a filter transforms them, a sink checks them. Messages go from
 * process to process through the domain's shared partition; no process
 * knows another's pid, only its node id and port.
 *
 * Shows: nodes as processes (fork; a separately started program works the
 * same way), mcapi_endpoint_get waiting for a stage that starts later, FIFO
 * per sender across processes, a "done" marker, exit codes as the result.
 *
 *   example_pipeline [records]     (default 10000; exit 0 when the sink saw every record)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mcapi.h>

enum { DOMAIN = 7, SOURCE = 1, FILTER = 2, SINK = 3, PORT = 1 };
enum { DONE = 0xffffffffu };

struct record { uint32_t seq; uint32_t value; };

static long records = 10000;

static mcapi_endpoint_t join(mcapi_node_t node, mcapi_status_t *st)
{
  mcapi_info_t info;
  mcapi_initialize(DOMAIN, node, NULL, NULL, &info, st);
  return *st == MCAPI_SUCCESS ? mcapi_endpoint_create(PORT, st) : 0;
}

static int source(void)
{
  mcapi_status_t st;
  mcapi_endpoint_t me = join(SOURCE, &st);
  mcapi_endpoint_t next = mcapi_endpoint_get(DOMAIN, FILTER, PORT, 10000, &st);
  for (long i = 0; i <= records && st == MCAPI_SUCCESS; i++) {
    struct record r = {i < records ? (uint32_t)i : DONE, (uint32_t)i};
    mcapi_msg_send(me, next, &r, sizeof r, 1, &st);
  }
  int rc = st == MCAPI_SUCCESS ? 0 : 1;
  mcapi_finalize(&st);
  return rc;
}

static int filter(void)
{
  mcapi_status_t st;
  mcapi_endpoint_t me = join(FILTER, &st);
  mcapi_endpoint_t next = mcapi_endpoint_get(DOMAIN, SINK, PORT, 10000, &st);
  while (st == MCAPI_SUCCESS) {
    struct record r;
    size_t n;
    mcapi_msg_recv(me, &r, sizeof r, &n, &st);
    if (st != MCAPI_SUCCESS)
      break;
    if (r.seq != DONE)
      r.value = r.value * 3 + 1; /* the stage's work */
    mcapi_msg_send(me, next, &r, sizeof r, 1, &st);
    if (r.seq == DONE)
      break;
  }
  int rc = st == MCAPI_SUCCESS ? 0 : 1;
  mcapi_finalize(&st);
  return rc;
}

static int sink(void)
{
  mcapi_status_t st;
  mcapi_endpoint_t me = join(SINK, &st);
  long expect = 0;
  while (st == MCAPI_SUCCESS) {
    struct record r;
    size_t n;
    mcapi_msg_recv(me, &r, sizeof r, &n, &st);
    if (st != MCAPI_SUCCESS || r.seq == DONE)
      break;
    if (r.seq != (uint32_t)expect || r.value != (uint32_t)expect * 3 + 1) {
      fprintf(stderr, "pipeline: record %ld arrived as seq %u value %u\n", expect, r.seq, r.value);
      return 1;
    }
    expect++;
  }
  printf("pipeline: sink received %ld of %ld records in order, each transformed once\n", expect, records);
  fflush(stdout); /* the stage ends with _exit */
  int rc = st == MCAPI_SUCCESS && expect == records ? 0 : 1;
  mcapi_finalize(&st);
  return rc;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    records = atol(argv[1]);
  int (*stage[])(void) = {sink, filter, source}; /* started last to first: any order works */
  pid_t pid[3];
  for (int i = 0; i < 3; i++) {
    pid[i] = fork();
    if (pid[i] == 0)
      _exit(stage[i]());
    if (pid[i] < 0) {
      perror("fork");
      return 1;
    }
  }
  int bad = 0;
  for (int i = 0; i < 3; i++) {
    int ws;
    waitpid(pid[i], &ws, 0);
    bad |= !WIFEXITED(ws) || WEXITSTATUS(ws) != 0;
  }
  return bad;
}
