/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The checks of a bridge's configuration (docs/bridge.md: security): the
 * text of the configuration file (its strings valid UTF-8, no NUL), the key
 * file, the TLS files, the state directory and its records. `mca bridge
 * --check` makes them all, mcx_bridge_run() those of the files again.
 *
 * A file a configuration names is opened without waiting and looked at
 * through the descriptor opened (ports/mcx_port_file.h): a FIFO, a device
 * or a directory is refused unread, so a check never hangs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_internal.h"
#include "common/mcx_err.h"
#include "ports/mcx_port_file.h"

#define CONFIG_MAX (1u << 20) /* a configuration, a PEM file: at most 1 MiB */

static const char *kind_name(int kind)
{
  switch (kind) {
  case MCX_FILE_DIR: return "a directory";
  case MCX_FILE_FIFO: return "a FIFO";
  case MCX_FILE_CHR: return "a character device";
  case MCX_FILE_BLK: return "a block device";
  case MCX_FILE_SOCK: return "a socket";
  default: return "not a regular file";
  }
}

/* Opens @p path (@p what names it in messages) for reading, never waiting:
 * only a regular file is kept open. */
static int open_regular(const char *what, const char *path, int *fd, mcx_port_file_info_t *in, char *why, size_t n)
{
  int rc = mcx_port_file_open_read(path, fd, in);
  if (rc) {
    snprintf(why, n, "%s %s: %s", what, path,
             rc == MCX_ENOENT ? "no such file" : rc == MCX_EPERM ? "not readable by this user" : "cannot be opened");
    return -1;
  }
  if (in->kind != MCX_FILE_REG) {
    snprintf(why, n, "%s %s is %s, not a regular file", what, path, kind_name(in->kind));
    mcx_port_file_close(*fd);
    return -1;
  }
  return 0;
}

/* Reads a whole regular file of at most @p cap bytes into a malloc'd,
 * NUL-terminated buffer. */
static int slurp(const char *what, const char *path, size_t cap, char **out, size_t *len, mcx_port_file_info_t *in,
                 char *why, size_t n)
{
  int fd;
  if (open_regular(what, path, &fd, in, why, n))
    return -1;
  char *buf = malloc(cap + 1);
  size_t got = 0;
  int rc = buf ? mcx_port_file_read_all(fd, buf, cap + 1, &got) : MCX_ENOMEM;
  mcx_port_file_close(fd);
  if (rc || got > cap) {
    snprintf(why, n, "%s %s: %s", what, path, rc == MCX_ENOMEM ? "out of memory" : rc ? "read failed" : "larger than 1 MiB");
    free(buf);
    return -1;
  }
  buf[got] = 0;
  *out = buf;
  *len = got;
  return 0;
}

/* ---- the configuration's text */
/* The length of the valid UTF-8 sequence at @p s (at most @p left bytes);
 * 0 when it is not one (overlong, a surrogate, above U+10FFFF, cut short). */
static size_t utf8_len(const uint8_t *s, size_t left)
{
  uint8_t c = s[0];
  size_t need;
  uint8_t lo = 0x80, hi = 0xbf; /* the bounds of the second byte */
  if (c < 0x80)
    return 1;
  if (c >= 0xc2 && c <= 0xdf)
    need = 1;
  else if (c >= 0xe0 && c <= 0xef)
    need = 2, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
  else if (c >= 0xf0 && c <= 0xf4)
    need = 3, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
  else
    return 0;
  if (left < need + 1 || s[1] < lo || s[1] > hi)
    return 0;
  for (size_t i = 2; i <= need; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  return need + 1;
}

static int hex4(const uint8_t *s, size_t left, unsigned *v)
{
  *v = 0;
  if (left < 4)
    return -1;
  for (int i = 0; i < 4; i++) {
    uint8_t c = s[i];
    unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                 : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a') + 10
                 : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A') + 10
                                        : 16;
    if (d > 15)
      return -1;
    *v = *v * 16 + d;
  }
  return 0;
}

/* What is wrong with the JSON string starting after the quote at @p s:
 * NULL when nothing this check looks for; *end is after its closing quote.
 * Malformed escapes and control characters are the parser's to report. */
static const char *string_fault(const uint8_t *s, size_t left, size_t *end, size_t *at)
{
  size_t i = 0;
  const char *fault = NULL;
  while (i < left && s[i] != '"') {
    if (s[i] == '\\' && i + 1 < left) {
      unsigned u, lo;
      if (s[i + 1] != 'u') {
        i += 2;
        continue;
      }
      if (hex4(s + i + 2, left - i - 2, &u)) {
        i += 2;
        continue;
      }
      if (!fault && u == 0)
        fault = "a NUL character (\\u0000)", *at = i;
      if (u >= 0xd800 && u <= 0xdbff && i + 12 <= left && s[i + 6] == '\\' && s[i + 7] == 'u' &&
          !hex4(s + i + 8, left - i - 8, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
        i += 12; /* a surrogate pair: one character */
        continue;
      }
      if (!fault && u >= 0xd800 && u <= 0xdfff)
        fault = "invalid UTF-8 (a lone surrogate escape)", *at = i;
      i += 6;
      continue;
    }
    if (s[i] == 0) {
      if (!fault)
        fault = "a NUL byte", *at = i;
      i++;
      continue;
    }
    size_t k = utf8_len(s + i, left - i);
    if (!k) {
      if (!fault)
        fault = "invalid UTF-8", *at = i;
      k = 1;
    }
    i += k;
  }
  *end = i < left ? i + 1 : left;
  return fault;
}

/* A key as it can be shown: printable ASCII, at most 40 bytes. */
static void show_key(const uint8_t *s, size_t len, char *out, size_t cap)
{
  size_t o = 0;
  for (size_t i = 0; i < len && o + 1 < cap && o < 40; i++)
    out[o++] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
  out[o] = 0;
}

int mcx_bridge_check_config_text(const char *path, char *why, size_t n)
{
  char *text;
  size_t len;
  mcx_port_file_info_t in;
  if (slurp("configuration", path, CONFIG_MAX, &text, &len, &in, why, n))
    return -1;
  const uint8_t *s = (const uint8_t *)text;
  /* The key of each open object, so a fault names where it is: "tls.ca". */
  enum { DEPTH = 8 };
  char keys[DEPTH][48] = {{0}};
  int depth = 0, line = 1, rc = 0;
  for (size_t i = 0; i < len && !rc;) {
    uint8_t c = s[i];
    if (c == '\n')
      line++;
    if (c == '{' || c == '[') {
      if (++depth < DEPTH)
        keys[depth][0] = 0;
      i++;
    } else if (c == '}' || c == ']') {
      depth -= depth > 0;
      i++;
    } else if (c == 0) {
      snprintf(why, n, "line %d: a NUL byte outside any string", line);
      rc = -1;
    } else if (c != '"') {
      i++;
    } else {
      size_t end, at = 0;
      const char *fault = string_fault(s + i + 1, len - i - 1, &end, &at);
      size_t str = i + 1, slen = end ? end - 1 : 0;
      int fault_line = line;
      for (size_t k = str; k < str + at; k++)
        fault_line += s[k] == '\n';
      for (size_t k = str; k < str + end; k++)
        line += s[k] == '\n';
      i = str + end;
      size_t j = i;
      while (j < len && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n'))
        j++;
      int is_key = j < len && s[j] == ':';
      char where[DEPTH * 48 + 8] = "";
      for (int d = 1; d <= depth && d < DEPTH; d++) {
        size_t w = strlen(where);
        if (d < depth || !is_key)
          snprintf(where + w, sizeof where - w, "%s%s", w ? "." : "", keys[d]);
      }
      if (fault) {
        if (is_key)
          snprintf(why, n, "line %d: a key%s%s%s has %s", fault_line, *where ? " of \"" : "", where,
                   *where ? "\"" : "", fault);
        else
          snprintf(why, n, "line %d: the string of \"%s\" has %s", fault_line, where, fault);
        rc = -1;
      } else if (is_key && depth > 0 && depth < DEPTH) {
        show_key(s + str, slen, keys[depth], sizeof keys[depth]);
      }
    }
  }
  free(text);
  return rc;
}

/* ---- the key */
int mcx_bridge_read_key(const char *path, mcx_bridge_config_t *c, char *why, size_t n)
{
  int fd;
  mcx_port_file_info_t in;
  if (open_regular("key file", path, &fd, &in, why, n))
    return -1;
  uint32_t me = mcx_port_euid();
  size_t got = 0;
  int rc = -1;
  uint8_t buf[sizeof c->key + 1];
  if (in.uid != me && in.uid != 0)
    snprintf(why, n, "key file %s is owned by uid %u, not by this bridge's user (uid %u) or root", path, in.uid, me);
  else if (in.mode & 077)
    snprintf(why, n, "key file %s is readable or writable by others (chmod 600 it)", path);
  else if (mcx_port_file_read_all(fd, buf, sizeof buf, &got))
    snprintf(why, n, "key file %s: read failed", path);
  else
    rc = 0;
  mcx_port_file_close(fd);
  if (rc)
    return -1;
  int more = got > sizeof c->key;
  size_t k = more ? sizeof c->key : got;
  while (k && (buf[k - 1] == '\n' || buf[k - 1] == '\r' || buf[k - 1] == ' '))
    k--;
  if (k < 16 || more) {
    snprintf(why, n, "key file %s must hold 16 to 64 bytes", path);
    return -1;
  }
  memcpy(c->key, buf, k);
  c->key_len = (unsigned)k;
  return 0;
}

/* ---- TLS files */
int mcx__br_read_pem(const char *what, const char *path, int secret, char **pem, char *why, size_t n)
{
  char *text;
  size_t len;
  mcx_port_file_info_t in;
  if (slurp(what, path, CONFIG_MAX, &text, &len, &in, why, n))
    return -1;
  uint32_t me = mcx_port_euid();
  if (in.uid != me && in.uid != 0)
    snprintf(why, n, "%s %s is owned by uid %u, not by this bridge's user (uid %u) or root", what, path, in.uid, me);
  else if (in.mode & (secret ? 077 : 022))
    snprintf(why, n, "%s %s is %s by others (chmod %s it)", what, path,
             secret ? "readable or writable" : "writable", secret ? "600" : "go-w");
  else if (memchr(text, 0, len))
    snprintf(why, n, "%s %s has a NUL byte: not a PEM file", what, path);
  else
    goto parse;
  free(text);
  return -1;
parse:;
  /* Parsed as the bridge will use it, when nng has a TLS engine (without
   * one, a tls+tcp:// URL fails at the start, with its own message). */
  nng_tls_config *cfg;
  int rv = nng_tls_config_alloc(&cfg, secret ? NNG_TLS_MODE_SERVER : NNG_TLS_MODE_CLIENT);
  if (rv == 0) {
    rv = secret ? nng_tls_config_own_cert(cfg, text, text, NULL) : nng_tls_config_ca_chain(cfg, text, NULL);
    nng_tls_config_free(cfg);
    if (rv) {
      snprintf(why, n, "%s %s: %s (nng: %s)", what, path,
               secret ? "no PEM certificate with its private key" : "no PEM CA certificate", nng_strerror(rv));
      free(text);
      return -1;
    }
  }
  *pem = text;
  return 0;
}

/* ---- the whole set of files */
int mcx_bridge_check_files(const mcx_bridge_config_t *c, char *why, size_t n)
{
  int dirfd;
  if (mcx__br_state_open(c->state_dir, &dirfd, why, n))
    return -1;
  int rc = 0;
  for (unsigned i = 0; i < c->npeers && !rc; i++) {
    char name[64];
    uint64_t v[2];
    int fd;
    snprintf(name, sizeof name, "delivered-d%u-from-d%u", c->domain, c->peers[i].domain);
    char sub[400];
    if (mcx__br_record_file(dirfd, name, 0, &fd, v, sub, sizeof sub)) {
      snprintf(why, n, "state_dir %s: %s", c->state_dir, sub);
      rc = -1;
    }
    mcx_port_file_close(fd);
  }
  mcx_port_file_close(dirfd);
  char *pem = NULL;
  if (!rc && c->tls_cert_key[0] && !(rc = mcx__br_read_pem("TLS cert_key", c->tls_cert_key, 1, &pem, why, n)))
    free(pem);
  if (!rc && c->tls_ca[0] && !(rc = mcx__br_read_pem("TLS ca", c->tls_ca, 0, &pem, why, n)))
    free(pem);
  return rc;
}
