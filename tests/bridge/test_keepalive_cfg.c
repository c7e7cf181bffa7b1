/* SPDX-License-Identifier: BSD-3-Clause */
/* mcx_bridge_run() refuses a keep-alive interval outside 20..60000 ms (other
 * than 0, the default, and MCX_BRIDGE_KEEPALIVE_OFF) before it joins a
 * domain, and says why (docs/bridge.md: keep-alive). */
#define _POSIX_C_SOURCE 200809L /* fileno, dup */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mcx_bridge.h"

int main(void)
{
  static const unsigned bad[] = {1, 19, 60001, 0xfffffffeu};
  int fails = 0;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    mcx_bridge_config_t c;
    memset(&c, 0, sizeof c);
    c.domain = 1;
    c.key_len = 32;
    snprintf(c.listen, sizeof c.listen, "ipc:///nonexistent/keepalive-test.sock");
    snprintf(c.state_dir, sizeof c.state_dir, "/nonexistent");
    c.keepalive_ms = bad[i];
    /* The bridge logs to stderr: catch it in a file. */
    FILE *log = tmpfile();
    int saved = dup(2);
    if (!log || saved < 0 || dup2(fileno(log), 2) < 0)
      return 2;
    int rc = mcx_bridge_run(&c);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char line[256] = "", want[128];
    rewind(log);
    if (!fgets(line, sizeof line, log))
      line[0] = 0;
    fclose(log);
    snprintf(want, sizeof want, "keepalive_ms must be from 20 to 60000 (or off), not %u\n", bad[i]);
    int said = strstr(line, want) != NULL;
    printf("keepalive_ms %u: %s; %s", bad[i], rc == -1 ? "refused" : "accepted", line[0] ? line : "(nothing logged)\n");
    fails += rc != -1 || !said;
  }
  return fails != 0;
}
