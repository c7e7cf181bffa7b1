/* SPDX-License-Identifier: BSD-3-Clause */
/* Named shared memory (Windows): pagefile-backed file mappings in the
 * session's namespace (Local\), with a security descriptor that gives the
 * creating user alone access.
 *
 * Windows frees a name only with its object's last handle and view, where
 * POSIX shm_unlink frees it at once. So a name "/name" is a record,
 * Local\name, holding a generation number and a "live" flag, and each
 * creation is its own object, Local\name@<generation>: unlink clears the
 * flag (the name is free for the next create while views of the unlinked
 * object live on), create makes the next generation live. Every handle and
 * view keeps a handle of the record, so a generation is never numbered twice.
 *
 * An object starts with one page of its own (struct hdr) ahead of what the
 * caller sees: the exact size (a section's size is rounded to pages), a
 * stamp unique to this creation (the key of shared waits, futex.c), and an
 * "unlinked" flag for opens that read the record just before an unlink. */
#include "win32.h"

#include <aclapi.h>
#include <sddl.h>
#include <stdio.h>
#include <string.h>

#include "common/mcx_err.h"
#include "ports/mcx_port.h"
#include "ports/mcx_port_shm.h"

#define HDR_BYTES 4096u
#define HDR_MAGIC 0x4d43583157534d31ull /* "MCX1WSM1" */

typedef struct hdr {
  mcx_atomic_u64 magic; /* written last by the creator (R-H1) */
  uint64_t size;        /* what the caller asked for */
  uint64_t stamp;       /* unique per creation */
  mcx_atomic_u32 unlinked;
} hdr_t;

/* ---- the calling user: its SID, as a string and as a 32-bit id */
static INIT_ONCE user_once = INIT_ONCE_STATIC_INIT;
static PSID user_sid;      /* LocalAlloc'ed copy, for the life of the process */
static wchar_t *user_ssid; /* "S-1-5-21-..." */
static uint32_t user_id;

static BOOL CALLBACK user_init(PINIT_ONCE once, PVOID param, PVOID *ctx)
{
  (void)once;
  (void)param;
  (void)ctx;
  HANDLE tok;
  if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
    return TRUE;
  DWORD n = 0;
  GetTokenInformation(tok, TokenUser, NULL, 0, &n);
  TOKEN_USER *tu = n ? LocalAlloc(LMEM_FIXED, n) : NULL;
  if (tu && GetTokenInformation(tok, TokenUser, tu, n, &n)) {
    DWORD len = GetLengthSid(tu->User.Sid);
    user_sid = LocalAlloc(LMEM_FIXED, len);
    if (user_sid && CopySid(len, user_sid, tu->User.Sid)) {
      ConvertSidToStringSidW(user_sid, &user_ssid);
      /* FNV-1a of the SID: names are per user, as with the uid on Linux. */
      uint32_t h = 2166136261u;
      for (DWORD i = 0; i < len; i++)
        h = (h ^ ((const unsigned char *)user_sid)[i]) * 16777619u;
      user_id = h & 0x7fffffffu;
    }
  }
  if (tu)
    LocalFree(tu);
  CloseHandle(tok);
  return TRUE;
}

static void user_load(void) { InitOnceExecuteOnce(&user_once, user_init, NULL, NULL); }

uint32_t mcx_port_uid(void)
{
  user_load();
  return user_id;
}

PSECURITY_DESCRIPTOR mcx__win_user_sd(unsigned mode)
{
  user_load();
  if (!user_ssid)
    return NULL;
  /* Protected DACL: the user gets everything; group/other bits of mode open
   * reading / writing to everyone (the shm_allow_foreign_write opt-in). */
  wchar_t sddl[256];
  const wchar_t *other = (mode & 022) ? L"(A;;GRGW;;;WD)" : (mode & 044) ? L"(A;;GR;;;WD)" : L"";
  swprintf(sddl, 256, L"O:%lsD:P(A;;GA;;;%ls)%ls", user_ssid, user_ssid, other);
  PSECURITY_DESCRIPTOR sd = NULL;
  if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &sd, NULL))
    return NULL;
  return sd;
}

/* ---- names: "/name" -> "Local\name" (the name's record) and
 * "Local\name@<gen>" (the object of one creation) */
#define WNAME_MAX (MCX_PORT_SHM_NAME_MAX + 32)
static int win_name(const char *name, wchar_t *out, size_t cap)
{
  if (!name || name[0] != '/' || name[1] == '\0')
    return 0;
  size_t n = strnlen(name, MCX_PORT_SHM_NAME_MAX);
  if (n >= MCX_PORT_SHM_NAME_MAX || strchr(name + 1, '/') || strchr(name + 1, '\\') ||
      strchr(name + 1, '@'))
    return 0;
  static const wchar_t prefix[] = L"Local\\";
  size_t k = 0;
  for (; prefix[k]; k++)
    out[k] = prefix[k];
  for (const char *c = name + 1; *c && k + 1 < cap; c++)
    out[k++] = (wchar_t)(unsigned char)*c; /* names are ASCII (mcx_port_shm.h) */
  out[k] = 0;
  return 1;
}

static void gen_name(const wchar_t *rec, uint64_t gen, wchar_t *out, size_t cap)
{
  swprintf(out, cap, L"%ls@%llx", rec, (unsigned long long)gen);
}

/* The name's record: one word, (generation << 1) | live. A create makes the
 * next generation live, an unlink clears "live", so a name is free again at
 * once, as after shm_unlink, though views of the unlinked object live on
 * (Windows frees a name only with the object's last handle and view). Every
 * handle of an object and every view keep a handle of the record too, so
 * the record outlives every generation it numbered: a generation is never
 * used twice. */
typedef struct rec {
  mcx_atomic_u64 word;
} rec_t;

/* ---- the open objects and views of this process: each holds its record */
#define MAX_OPENS 1024
typedef struct opened {
  HANDLE h; /* the object, as in mcx_port_shm_t; NULL: free entry */
  HANDLE rec;
} opened_t;
static opened_t opens[MAX_OPENS];

#define MAX_VIEWS 1024
typedef struct view {
  char *user; /* what mcx_port_shm_map returned; NULL: free entry */
  size_t size;
  uint64_t stamp;
  HANDLE keep; /* the mapping, open while the view lives: keeps its name (Wine drops a
                  name with the last handle, views or not) */
  HANDLE rec;  /* its record, likewise */
} view_t;
static view_t views[MAX_VIEWS];
static SRWLOCK views_lock = SRWLOCK_INIT; /* guards opens[] and views[] */

/* Objects this process created and has not seen unlinked. Windows destroys
 * a named object with its last handle, where a POSIX object stays until it
 * is unlinked: the creating process holds one handle (and the header's page)
 * until an unlink, its own or another process's (seen through the header's
 * flag at the next create or unlink here), or until it exits. */
#define MAX_KEPT 1024
typedef struct kept {
  hdr_t *hd; /* NULL: free entry */
  HANDLE h, rec;
} kept_t;
static kept_t kept[MAX_KEPT];
static SRWLOCK kept_lock = SRWLOCK_INIT;

static int kept_add(hdr_t *hd, HANDLE h, HANDLE rec)
{
  HANDLE self = GetCurrentProcess(), kh = NULL, kr = NULL;
  if (!DuplicateHandle(self, h, self, &kh, 0, FALSE, DUPLICATE_SAME_ACCESS) ||
      !DuplicateHandle(self, rec, self, &kr, 0, FALSE, DUPLICATE_SAME_ACCESS)) {
    if (kh)
      CloseHandle(kh);
    return 0;
  }
  int added = 0;
  AcquireSRWLockExclusive(&kept_lock);
  for (int i = 0; i < MAX_KEPT && !added; i++)
    if (!kept[i].hd) {
      kept[i] = (kept_t){hd, kh, kr};
      added = 1;
    }
  ReleaseSRWLockExclusive(&kept_lock);
  if (!added) {
    CloseHandle(kh);
    CloseHandle(kr);
  }
  return added;
}

/* Lets go of the kept objects that were unlinked since. */
static void kept_sweep(void)
{
  AcquireSRWLockExclusive(&kept_lock);
  for (int i = 0; i < MAX_KEPT; i++)
    if (kept[i].hd && mcx_load_acquire(&kept[i].hd->unlinked)) { /* pairs with the release in unlink */
      UnmapViewOfFile(kept[i].hd);
      CloseHandle(kept[i].h);
      CloseHandle(kept[i].rec);
      kept[i] = (kept_t){NULL, NULL, NULL};
    }
  ReleaseSRWLockExclusive(&kept_lock);
}

static int open_add(HANDLE h, HANDLE rec)
{
  int added = 0;
  AcquireSRWLockExclusive(&views_lock);
  for (int i = 0; i < MAX_OPENS && !added; i++)
    if (!opens[i].h) {
      opens[i] = (opened_t){h, rec};
      added = 1;
    }
  ReleaseSRWLockExclusive(&views_lock);
  return added;
}

static HANDLE open_rec(HANDLE h, int remove)
{
  HANDLE rec = NULL;
  AcquireSRWLockExclusive(&views_lock);
  for (int i = 0; i < MAX_OPENS; i++)
    if (opens[i].h == h) {
      rec = opens[i].rec;
      if (remove)
        opens[i] = (opened_t){NULL, NULL};
      break;
    }
  ReleaseSRWLockExclusive(&views_lock);
  return rec;
}

static int view_add(char *user, size_t size, uint64_t stamp, HANDLE keep, HANDLE rec)
{
  int added = 0;
  AcquireSRWLockExclusive(&views_lock);
  for (int i = 0; i < MAX_VIEWS && !added; i++)
    if (!views[i].user) {
      views[i] = (view_t){user, size, stamp, keep, rec};
      added = 1;
    }
  ReleaseSRWLockExclusive(&views_lock);
  return added;
}

int mcx__win_shm_key(const void *addr, uint64_t *stamp, uint64_t *offset)
{
  const char *a = addr;
  int found = 0;
  AcquireSRWLockShared(&views_lock);
  for (int i = 0; i < MAX_VIEWS && !found; i++)
    if (views[i].user && a >= views[i].user && a < views[i].user + views[i].size) {
      *stamp = views[i].stamp;
      *offset = (uint64_t)(a - views[i].user);
      found = 1;
    }
  ReleaseSRWLockShared(&views_lock);
  return found;
}

int mcx__win_unmap_view(void *addr)
{
  char *base = NULL;
  HANDLE keep = NULL, rec = NULL;
  AcquireSRWLockExclusive(&views_lock);
  for (int i = 0; i < MAX_VIEWS; i++)
    if (views[i].user == addr) {
      base = views[i].user - HDR_BYTES;
      keep = views[i].keep;
      rec = views[i].rec;
      views[i].user = NULL;
      break;
    }
  ReleaseSRWLockExclusive(&views_lock);
  if (!base) {
    MEMORY_BASIC_INFORMATION mi;
    if (VirtualQuery(addr, &mi, sizeof mi) == 0 || mi.Type != MEM_MAPPED)
      return 0;
    base = mi.AllocationBase;
  }
  UnmapViewOfFile(base);
  if (keep)
    CloseHandle(keep);
  if (rec)
    CloseHandle(rec);
  return 1;
}

static uint64_t new_stamp(void)
{
  static mcx_atomic_u64 seq;
  LARGE_INTEGER c;
  QueryPerformanceCounter(&c);
  uint64_t s = (uint64_t)c.QuadPart ^ ((uint64_t)GetCurrentProcessId() << 40) ^
               (mcx_fetch_add_relaxed(&seq, 1u) * 0x9e3779b97f4a7c15ull);
  return s ? s : 1;
}

/* The rights the DACL gives to anyone but the user, as group/other mode bits. */
static int foreign_bits(HANDLE h, unsigned *bits)
{
  PSID owner = NULL;
  PACL dacl = NULL;
  PSECURITY_DESCRIPTOR sd = NULL;
  *bits = 0;
  user_load();
  if (GetSecurityInfo(h, SE_KERNEL_OBJECT, OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
                      &owner, NULL, &dacl, NULL, &sd) != ERROR_SUCCESS)
    return MCX_EIO;
  int r = MCX_OK;
  if (!owner || !user_sid || !EqualSid(owner, user_sid)) {
    r = MCX_EPERM;
  } else if (!dacl) {
    *bits = 066; /* a NULL DACL lets everybody in */
  } else {
    for (DWORD i = 0; i < dacl->AceCount; i++) {
      ACE_HEADER *ace;
      if (!GetAce(dacl, i, (void **)&ace) || ace->AceType != ACCESS_ALLOWED_ACE_TYPE)
        continue;
      ACCESS_ALLOWED_ACE *a = (ACCESS_ALLOWED_ACE *)ace;
      PSID sid = (PSID)&a->SidStart;
      if (EqualSid(sid, user_sid))
        continue;
      if (a->Mask & (GENERIC_ALL | GENERIC_WRITE | SECTION_MAP_WRITE))
        *bits |= 022;
      if (a->Mask & (GENERIC_ALL | GENERIC_READ | SECTION_MAP_READ))
        *bits |= 044;
    }
  }
  LocalFree(sd);
  return r;
}

/* Opens (create: or creates) the record of @p wn. MCX_ENOENT none (open
 * only), MCX_EPERM another user's. */
static int rec_get(const wchar_t *wn, int create, HANDLE *out)
{
  HANDLE h;
  if (create) {
    SECURITY_ATTRIBUTES sa = {sizeof sa, mcx__win_user_sd(0600), FALSE};
    if (!sa.lpSecurityDescriptor)
      return MCX_EIO;
    h = CreateFileMappingW(INVALID_HANDLE_VALUE, &sa, PAGE_READWRITE, 0, (DWORD)sizeof(rec_t), wn);
    DWORD err = GetLastError();
    LocalFree(sa.lpSecurityDescriptor);
    if (!h)
      return err == ERROR_ACCESS_DENIED ? MCX_EPERM : MCX_EIO;
  } else {
    /* READ_CONTROL: to read the owner and the DACL below. */
    h = OpenFileMappingW(FILE_MAP_READ | FILE_MAP_WRITE | READ_CONTROL, FALSE, wn);
    if (!h) {
      DWORD e = GetLastError();
      return e == ERROR_FILE_NOT_FOUND ? MCX_ENOENT : e == ERROR_ACCESS_DENIED ? MCX_EPERM : MCX_EIO;
    }
  }
  unsigned bits;
  int r = foreign_bits(h, &bits);
  if (r == MCX_OK && (bits & 0022u))
    r = MCX_EPERM; /* others could renumber it */
  if (r) {
    CloseHandle(h);
    return r;
  }
  *out = h;
  return MCX_OK;
}

static rec_t *rec_map(HANDLE h) { return MapViewOfFile(h, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, sizeof(rec_t)); }

/* ---- the calls of mcx_port_shm.h */
int mcx_port_shm_create(const char *name, size_t size, mcx_port_shm_t *out)
{
  return mcx_port_shm_create_mode(name, size, 0600, out);
}

int mcx_port_shm_create_mode(const char *name, size_t size, unsigned mode, mcx_port_shm_t *out)
{
  wchar_t wn[WNAME_MAX], gn[WNAME_MAX];
  if (!win_name(name, wn, WNAME_MAX) || size == 0 || !out || (mode & ~0666u) ||
      (mode & 0600) != 0600 || size > SIZE_MAX - HDR_BYTES)
    return MCX_EINVAL;
  HANDLE rh;
  int r = rec_get(wn, 1, &rh);
  if (r)
    return r == MCX_EPERM ? MCX_EEXIST : r; /* another user's name */
  rec_t *rec = rec_map(rh);
  if (!rec) {
    CloseHandle(rh);
    return MCX_EIO;
  }
  /* G-A1 acquire: pairs with G-R1 (the word another create or unlink left). */
  uint64_t w = mcx_load_acquire(&rec->word), nw;
  do {
    if (w & 1u) {
      UnmapViewOfFile(rec);
      CloseHandle(rh);
      return MCX_EEXIST;
    }
    nw = (((w >> 1) + 1) << 1) | 1u;
  } while (!mcx_cas_acq_rel(&rec->word, &w, nw)); /* G-R1: pairs with G-A1 */
  gen_name(wn, nw >> 1, gn, WNAME_MAX);
  SECURITY_ATTRIBUTES sa = {sizeof sa, mcx__win_user_sd(mode), FALSE};
  uint64_t total = (uint64_t)size + HDR_BYTES;
  HANDLE h = sa.lpSecurityDescriptor ? CreateFileMappingW(INVALID_HANDLE_VALUE, &sa, PAGE_READWRITE,
                                                          (DWORD)(total >> 32), (DWORD)total, gn)
                                     : NULL;
  DWORD err = GetLastError();
  if (sa.lpSecurityDescriptor)
    LocalFree(sa.lpSecurityDescriptor);
  hdr_t *hd = NULL;
  if (h && err == ERROR_ALREADY_EXISTS) { /* not ours (another user's squatter) */
    CloseHandle(h);
    h = NULL;
  }
  if (h)
    hd = MapViewOfFile(h, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, HDR_BYTES);
  if (!hd || !open_add(h, rh)) {
    if (h)
      CloseHandle(h);
    if (hd)
      UnmapViewOfFile(hd);
    /* Give the name back: this generation never came to be. */
    uint64_t cur = nw;
    mcx_cas_acq_rel(&rec->word, &cur, nw & ~(uint64_t)1u); /* G-R1 */
    UnmapViewOfFile(rec);
    CloseHandle(rh);
    return err == ERROR_NOT_ENOUGH_MEMORY || err == ERROR_COMMITMENT_LIMIT ? MCX_ENOMEM : MCX_EIO;
  }
  UnmapViewOfFile(rec);
  hd->size = size;
  hd->stamp = new_stamp();
  /* R-H1 — release: size and stamp before magic; pairs with A-H1 in open. */
  mcx_store_release(&hd->magic, HDR_MAGIC);
  kept_sweep();
  if (!kept_add(hd, h, rh))
    UnmapViewOfFile(hd); /* the object lives while handles or views of it do */
  out->fd = mcx__win_handle_int(h);
  out->size = size;
  return MCX_OK;
}

int mcx_port_shm_open(const char *name, size_t min_size, mcx_port_shm_t *out)
{
  return mcx_port_shm_open_mode(name, min_size, 0600, out);
}

int mcx_port_shm_open_mode(const char *name, size_t min_size, unsigned mode, mcx_port_shm_t *out)
{
  wchar_t wn[WNAME_MAX], gn[WNAME_MAX];
  if (!win_name(name, wn, WNAME_MAX) || !out)
    return MCX_EINVAL;
  HANDLE rh;
  int r = rec_get(wn, 0, &rh);
  if (r)
    return r;
  rec_t *rec = rec_map(rh);
  if (!rec) {
    CloseHandle(rh);
    return MCX_EIO;
  }
  uint64_t w = mcx_load_acquire(&rec->word); /* G-A1: pairs with G-R1 */
  UnmapViewOfFile(rec);
  if (!(w & 1u)) {
    CloseHandle(rh);
    return MCX_ENOENT;
  }
  gen_name(wn, w >> 1, gn, WNAME_MAX);
  HANDLE h = OpenFileMappingW(FILE_MAP_READ | FILE_MAP_WRITE | READ_CONTROL, FALSE, gn);
  if (!h) {
    DWORD e = GetLastError();
    CloseHandle(rh);
    /* Live but not there (yet): its creator is at work, or died at it. */
    return e == ERROR_FILE_NOT_FOUND ? MCX_EAGAIN : e == ERROR_ACCESS_DENIED ? MCX_EPERM : MCX_EIO;
  }
  /* Somebody else's object under our name, or one others can write: refuse it. */
  unsigned bits;
  r = foreign_bits(h, &bits);
  if (r == MCX_OK && (bits & ~mode & 0077u))
    r = MCX_EPERM;
  hdr_t *hd = r ? NULL : MapViewOfFile(h, FILE_MAP_READ, 0, 0, HDR_BYTES);
  if (!r && !hd)
    r = MCX_EIO;
  if (hd) {
    /* A-H1 — acquire: pairs with R-H1 (size and stamp are complete). */
    if (mcx_load_acquire(&hd->magic) != HDR_MAGIC)
      r = MCX_EAGAIN;
    else if (mcx_load_relaxed(&hd->unlinked))
      r = MCX_ENOENT;
    else if (hd->size < min_size)
      r = MCX_EAGAIN;
    else
      out->size = (size_t)hd->size;
    UnmapViewOfFile(hd);
  }
  if (!r && !open_add(h, rh))
    r = MCX_EIO;
  if (r) {
    CloseHandle(h);
    CloseHandle(rh);
    return r;
  }
  out->fd = mcx__win_handle_int(h);
  return MCX_OK;
}

void *mcx_port_shm_map(const mcx_port_shm_t *shm, size_t size)
{
  if (!shm || shm->fd == 0 || shm->fd == -1 || size == 0 || size > SIZE_MAX - HDR_BYTES)
    return NULL;
  HANDLE h = mcx__win_int_handle(shm->fd), rec = open_rec(h, 0);
  char *base = MapViewOfFile(h, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, size + HDR_BYTES);
  if (!base)
    return NULL;
  const hdr_t *hd = (const hdr_t *)base;
  HANDLE self = GetCurrentProcess(), keep = NULL, krec = NULL;
  if (!DuplicateHandle(self, h, self, &keep, 0, FALSE, DUPLICATE_SAME_ACCESS) ||
      (rec && !DuplicateHandle(self, rec, self, &krec, 0, FALSE, DUPLICATE_SAME_ACCESS)) ||
      !view_add(base + HDR_BYTES, size, hd->stamp, keep, krec)) { /* stamp: before magic (A-H1) */
    if (keep)
      CloseHandle(keep);
    if (krec)
      CloseHandle(krec);
    UnmapViewOfFile(base);
    return NULL;
  }
  return base + HDR_BYTES;
}

void mcx_port_shm_unmap(void *addr, size_t size)
{
  if (addr && size)
    mcx__win_unmap_view(addr);
}

void mcx_port_shm_close(mcx_port_shm_t *shm)
{
  if (shm && shm->fd != -1 && shm->fd != 0) {
    HANDLE h = mcx__win_int_handle(shm->fd), rec = open_rec(h, 1);
    CloseHandle(h);
    if (rec)
      CloseHandle(rec);
    shm->fd = -1;
  }
}

int mcx_port_shm_unlink(const char *name)
{
  wchar_t wn[WNAME_MAX], gn[WNAME_MAX];
  if (!win_name(name, wn, WNAME_MAX))
    return MCX_EINVAL;
  HANDLE rh;
  int r = rec_get(wn, 0, &rh);
  if (r)
    return r == MCX_ENOENT || r == MCX_EPERM ? r : MCX_EIO;
  rec_t *rec = rec_map(rh);
  if (!rec) {
    CloseHandle(rh);
    return MCX_EIO;
  }
  /* One unlink wins (a second one reports MCX_ENOENT); creates after it make the next generation. */
  uint64_t w = mcx_load_acquire(&rec->word); /* G-A1: pairs with G-R1 */
  do {
    if (!(w & 1u))
      break;
  } while (!mcx_cas_acq_rel(&rec->word, &w, w & ~(uint64_t)1u)); /* G-R1: pairs with G-A1 */
  UnmapViewOfFile(rec);
  r = (w & 1u) ? MCX_OK : MCX_ENOENT;
  if (r == MCX_OK) {
    /* Opens that read the word before the unlink find the object flagged. */
    gen_name(wn, w >> 1, gn, WNAME_MAX);
    HANDLE h = OpenFileMappingW(FILE_MAP_READ | FILE_MAP_WRITE, FALSE, gn);
    hdr_t *hd = h ? MapViewOfFile(h, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, HDR_BYTES) : NULL;
    if (hd) {
      mcx_store_release(&hd->unlinked, 1u); /* pairs with the relaxed check in open: a flag, nothing published with it */
      UnmapViewOfFile(hd);
    }
    if (h)
      CloseHandle(h);
  }
  CloseHandle(rh);
  kept_sweep();
  return r;
}

uint32_t mcx_port_fork_generation(void) { return 0; /* no fork() on Windows */ }

void mcx_port_on_fork_child(void (*fn)(void)) { (void)fn; }

int mcx_port_tid_alive(uint32_t tid)
{
  if (tid == 0)
    return 0;
  if (tid == GetCurrentThreadId() || tid == GetCurrentProcessId())
    return 1;
  /* Thread and process ids come from one table: a number names one or the other. */
  HANDLE h = OpenThread(THREAD_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, tid);
  if (!h)
    h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, tid);
  if (!h)
    return GetLastError() == ERROR_ACCESS_DENIED;
  /* Signalled once it has exited (a handle keeps an exited one openable). */
  int alive = WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
  CloseHandle(h);
  return alive;
}
