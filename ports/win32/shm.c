/* SPDX-License-Identifier: BSD-3-Clause */
/* Named shared memory (Windows): pagefile-backed file mappings named
 * Local\<name> (the session's namespace), with a security descriptor that
 * gives the creating user alone access.
 *
 * A mapping starts with one page of its own (struct hdr) ahead of what the
 * caller sees: the exact size (a section's size is rounded to pages), a
 * stamp unique to this creation (the key of shared waits, futex.c), and an
 * "unlinked" flag. Windows removes a name with the object, when its last
 * handle and view are gone (every view here keeps a handle: Wine drops the
 * name with the last handle); until then an unlinked mapping is refused by
 * open (MCX_ENOENT), as a POSIX shm_unlink hides the name at once. */
#include "win32.h"

#include <aclapi.h>
#include <sddl.h>
#include <stdio.h>
#include <string.h>

#include "../../src/common/mcx_err.h"
#include "../mcx_port.h"
#include "../mcx_port_shm.h"

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

/* ---- names: "/name" -> "Local\name" */
static int win_name(const char *name, wchar_t *out, size_t cap)
{
  if (!name || name[0] != '/' || name[1] == '\0')
    return 0;
  size_t n = strnlen(name, MCX_PORT_SHM_NAME_MAX);
  if (n >= MCX_PORT_SHM_NAME_MAX || strchr(name + 1, '/') || strchr(name + 1, '\\'))
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

/* ---- the views this process mapped, for unmapping and for futex keys */
#define MAX_VIEWS 1024
typedef struct view {
  char *user; /* what mcx_port_shm_map returned; NULL: free entry */
  size_t size;
  uint64_t stamp;
  HANDLE keep; /* the mapping, open while the view lives: keeps its name (Wine drops a
                  name with the last handle, views or not) */
} view_t;
static view_t views[MAX_VIEWS];
static SRWLOCK views_lock = SRWLOCK_INIT;

static int view_add(char *user, size_t size, uint64_t stamp, HANDLE keep)
{
  int added = 0;
  AcquireSRWLockExclusive(&views_lock);
  for (int i = 0; i < MAX_VIEWS && !added; i++)
    if (!views[i].user) {
      views[i] = (view_t){user, size, stamp, keep};
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
  HANDLE keep = NULL;
  AcquireSRWLockExclusive(&views_lock);
  for (int i = 0; i < MAX_VIEWS; i++)
    if (views[i].user == addr) {
      base = views[i].user - HDR_BYTES;
      keep = views[i].keep;
      views[i].user = NULL;
      break;
    }
  ReleaseSRWLockExclusive(&views_lock);
  if (keep)
    CloseHandle(keep);
  if (!base) {
    MEMORY_BASIC_INFORMATION mi;
    if (VirtualQuery(addr, &mi, sizeof mi) == 0 || mi.Type != MEM_MAPPED)
      return 0;
    base = mi.AllocationBase;
  }
  UnmapViewOfFile(base);
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

/* ---- the calls of mcx_port_shm.h */
int mcx_port_shm_create(const char *name, size_t size, mcx_port_shm_t *out)
{
  return mcx_port_shm_create_mode(name, size, 0600, out);
}

int mcx_port_shm_create_mode(const char *name, size_t size, unsigned mode, mcx_port_shm_t *out)
{
  wchar_t wn[MCX_PORT_SHM_NAME_MAX + 8];
  if (!win_name(name, wn, sizeof wn / sizeof wn[0]) || size == 0 || !out || (mode & ~0666u) ||
      (mode & 0600) != 0600 || size > SIZE_MAX - HDR_BYTES)
    return MCX_EINVAL;
  SECURITY_ATTRIBUTES sa = {sizeof sa, mcx__win_user_sd(mode), FALSE};
  if (!sa.lpSecurityDescriptor)
    return MCX_EIO;
  uint64_t total = (uint64_t)size + HDR_BYTES;
  HANDLE h = CreateFileMappingW(INVALID_HANDLE_VALUE, &sa, PAGE_READWRITE, (DWORD)(total >> 32),
                                (DWORD)total, wn);
  DWORD err = GetLastError();
  LocalFree(sa.lpSecurityDescriptor);
  if (!h)
    return err == ERROR_ACCESS_DENIED ? MCX_EEXIST : MCX_EIO; /* another user's name */
  if (err == ERROR_ALREADY_EXISTS) {
    CloseHandle(h);
    return MCX_EEXIST;
  }
  hdr_t *hd = MapViewOfFile(h, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, HDR_BYTES);
  if (!hd) {
    CloseHandle(h);
    return MCX_EIO;
  }
  hd->size = size;
  hd->stamp = new_stamp();
  /* R-H1 — release: size and stamp before magic; pairs with A-H1 in open. */
  mcx_store_release(&hd->magic, HDR_MAGIC);
  UnmapViewOfFile(hd);
  out->fd = mcx__win_handle_int(h);
  out->size = size;
  return MCX_OK;
}

int mcx_port_shm_open(const char *name, size_t min_size, mcx_port_shm_t *out)
{
  return mcx_port_shm_open_mode(name, min_size, 0600, out);
}

/* The rights the DACL gives to anyone but the user, as group/other mode bits. */
static int foreign_bits(HANDLE h, unsigned *bits)
{
  PSID owner = NULL;
  PACL dacl = NULL;
  PSECURITY_DESCRIPTOR sd = NULL;
  *bits = 0;
  if (GetSecurityInfo(h, SE_KERNEL_OBJECT, OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
                      &owner, NULL, &dacl, NULL, &sd) != ERROR_SUCCESS)
    return MCX_EIO;
  int r = MCX_OK;
  if (!owner || !EqualSid(owner, user_sid)) {
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

int mcx_port_shm_open_mode(const char *name, size_t min_size, unsigned mode, mcx_port_shm_t *out)
{
  wchar_t wn[MCX_PORT_SHM_NAME_MAX + 8];
  if (!win_name(name, wn, sizeof wn / sizeof wn[0]) || !out)
    return MCX_EINVAL;
  user_load();
  /* READ_CONTROL: to read the owner and the DACL below. */
  HANDLE h = OpenFileMappingW(FILE_MAP_READ | FILE_MAP_WRITE | READ_CONTROL, FALSE, wn);
  if (!h) {
    DWORD e = GetLastError();
    return e == ERROR_FILE_NOT_FOUND ? MCX_ENOENT : e == ERROR_ACCESS_DENIED ? MCX_EPERM : MCX_EIO;
  }
  /* Somebody else's object under our name, or one others can write: refuse it. */
  unsigned bits;
  int r = foreign_bits(h, &bits);
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
  if (r) {
    CloseHandle(h);
    return r;
  }
  out->fd = mcx__win_handle_int(h);
  return MCX_OK;
}

void *mcx_port_shm_map(const mcx_port_shm_t *shm, size_t size)
{
  if (!shm || shm->fd == 0 || shm->fd == -1 || size == 0 || size > SIZE_MAX - HDR_BYTES)
    return NULL;
  char *base = MapViewOfFile(mcx__win_int_handle(shm->fd), FILE_MAP_READ | FILE_MAP_WRITE, 0, 0,
                             size + HDR_BYTES);
  if (!base)
    return NULL;
  const hdr_t *hd = (const hdr_t *)base;
  HANDLE keep = NULL;
  if (!DuplicateHandle(GetCurrentProcess(), mcx__win_int_handle(shm->fd), GetCurrentProcess(),
                       &keep, 0, FALSE, DUPLICATE_SAME_ACCESS) ||
      !view_add(base + HDR_BYTES, size, hd->stamp, keep)) { /* stamp: before magic (A-H1) */
    if (keep)
      CloseHandle(keep);
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
    CloseHandle(mcx__win_int_handle(shm->fd));
    shm->fd = -1;
  }
}

int mcx_port_shm_unlink(const char *name)
{
  wchar_t wn[MCX_PORT_SHM_NAME_MAX + 8];
  if (!win_name(name, wn, sizeof wn / sizeof wn[0]))
    return MCX_EINVAL;
  HANDLE h = OpenFileMappingW(FILE_MAP_READ | FILE_MAP_WRITE, FALSE, wn);
  if (!h)
    return GetLastError() == ERROR_FILE_NOT_FOUND ? MCX_ENOENT : MCX_EIO;
  hdr_t *hd = MapViewOfFile(h, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, HDR_BYTES);
  int r = MCX_EIO;
  if (hd) {
    /* One unlink wins (a second one reports MCX_ENOENT); opens after it see the flag. */
    r = mcx_exchange_acq_rel(&hd->unlinked, 1u) ? MCX_ENOENT : MCX_OK;
    UnmapViewOfFile(hd);
  }
  CloseHandle(h);
  return r;
}

uint32_t mcx_port_fork_generation(void) { return 0; /* no fork() on Windows */ }

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
