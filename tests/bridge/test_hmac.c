/* SPDX-License-Identifier: BSD-3-Clause */
/* HMAC-SHA256 of the bridge's handshake against the test cases of RFC 4231
 * (4.2 - 4.8; 4.6's truncated output is compared on its 16 bytes). */
#include <stdio.h>
#include <string.h>

#include "mcx_bridge.h"

/* Hex digits, or text after a leading '='. */
static int hex(const char *h, uint8_t *out)
{
  int n = 0;
  if (h[0] == '=') {
    n = (int)strlen(h + 1);
    memcpy(out, h + 1, (size_t)n);
    return n;
  }
  for (; h[0] && h[1]; h += 2) {
    unsigned v;
    sscanf(h, "%2x", &v);
    out[n++] = (uint8_t)v;
  }
  return n;
}

int main(void)
{
  static const struct {
    const char *key, *data, *mac;
  } tc[] = {
      {"0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
       "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd",
       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {"0102030405060708090a0b0c0d0e0f10111213141516171819",
       "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd",
       "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
      {"0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c", "546573742057697468205472756e636174696f6e",
       "a3b6167473100ee06e0c796c2955552b"},
      {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
       "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
       "=This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
  };
  int bad = 0;
  for (size_t i = 0; i < sizeof tc / sizeof tc[0]; i++) {
    uint8_t key[200], data[256], want[32], got[32];
    int kl = hex(tc[i].key, key), dl = hex(tc[i].data, data), ml = hex(tc[i].mac, want);
    mcx_hmac_sha256(key, (size_t)kl, data, (size_t)dl, got);
    if (memcmp(got, want, (size_t)ml) != 0) {
      printf("RFC 4231 case %zu: HMAC-SHA256 differs\n", i + 1);
      bad = 1;
    }
  }
  /* One changed byte of the key changes the tag. */
  uint8_t a[32], b[32];
  mcx_hmac_sha256("key-0123456789ab", 16, "m", 1, a);
  mcx_hmac_sha256("key-0123456789ac", 16, "m", 1, b);
  if (!memcmp(a, b, 32)) {
    printf("different keys gave the same tag\n");
    bad = 1;
  }
  if (!bad)
    printf("HMAC-SHA256: the 7 RFC 4231 cases match\n");
  return bad;
}
