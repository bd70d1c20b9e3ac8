// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Housekeeping of JACK2's shared registry, so that killed runs leave nothing behind.
//
// JACK2 keeps at most 8 servers in /dev/shm/jack-shm-registry and reclaims a dead server's
// entry only when a server of the *same name* starts again (common/shm.c,
// jack_register_server). xrunlab's server names are unique per run, so a jackd that dies
// without cleaning up (SIGKILL, a crash) would hold its slot forever, and after eight such runs
// no JACK server at all could start on the machine ("Too many servers already active"). The
// engine therefore clears the entries of dead xrunlab servers, under the same registry lock
// libjack takes, and removes their leftover semaphore and socket files. Entries of any other server
// are never touched.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xrunlab {

struct RegistryEntry {
  int slot = 0;
  pid_t pid = 0;
  std::string name;  // "jack-<uid>:<server name>:" as JACK writes it
};

// The server entries of a registry image; nullopt (with *why) when the layout is not the one
// JACK2 1.9.x writes (magic "JACK", 8 entries of pid + 257-byte name), so nothing is touched.
std::optional<std::vector<RegistryEntry>> parse_jack_registry(std::string_view image,
                                                              std::string* why);

// A shared memory segment in the registry (after the server entries): JACK2 names it
// "/jack-<uid>-<index>" (a /dev/shm file) and records the pid that allocated it.
struct ShmSegment {
  int index = 0;
  pid_t allocator = 0;  // 0: a free entry
  uint32_t size = 0;
  std::string id;  // "/jack-<uid>-<index>"
};

// The segment entries of a registry image (MAX_SHM_ID = 256 of them, entry_len bytes each, after
// the header); nullopt (with *why) when the layout is not JACK2's.
std::optional<std::vector<ShmSegment>> parse_jack_segments(std::string_view image,
                                                           std::string* why);

// Is `name` (as in RegistryEntry) an xrunlab server of user `uid`?
bool is_xrunlab_entry(std::string_view name, uid_t uid);

// The xrunlab server a /dev/shm file of user `uid` belongs to: a semaphore
// "jack_sem.<uid>_xrunlab-<pid>-<n>_<client>" or a request socket
// "jack_xrunlab-<pid>-<n>_<uid>_<k>", or the virtual card's record
// "xrunlab-vcard-xrunlab-<pid>-<n>"; nullopt for anything else.
std::optional<std::string> xrunlab_server_of_file(std::string_view file, uid_t uid);

struct ReclaimResult {
  std::vector<std::string> reclaimed;  // server names whose stale entries were cleared
  std::vector<std::string> removed_files;
  std::string warning;          // why nothing could be done, if so (one line)
  bool lock_timed_out = false;  // JACK's registry lock was held longer than the wait
};

// JACK's registry lock: the System V semaphore JACK_SEMAPHORE_KEY, open to every user, which
// libjack holds while it changes the registry. Anyone can take and keep it, so it is waited for
// a bounded time only; then nothing is touched and the warning says who holds it (the last pid
// that took it). Tests use a private key.
inline constexpr key_t kJackSemaphoreKey = 0x282929;
struct RegistryLockSpec {
  key_t key = kJackSemaphoreKey;
  std::chrono::milliseconds wait{3000};
};

// The registry (SHM_DIR/jack-shm-registry) is used only when it is a regular file of root or of
// the effective user, opened without following a symbolic link: anyone may create it first, and
// what it names is unlinked. Otherwise nothing in it is touched and the warning names it. A file
// (segment, semaphore, socket) is unlinked only when it belongs to the effective user.

// Clears registry entries of xrunlab servers whose jackd and engine are both dead (or whose
// jackd is dead and which are `finished_server`: a live run's entry is its own to free), and
// removes the /dev/shm semaphore and socket files of xrunlab runs whose engine is gone, plus those
// of `finished_server` (this run's server, once its jackd has exited). `shm_dir` is /dev/shm except
// in tests.
ReclaimResult reclaim_stale_xrunlab_servers(const std::string& shm_dir = "/dev/shm",
                                            const std::string& finished_server = "",
                                            const RegistryLockSpec& lock = {});

// What one run's server left when it died uncleanly, and only that (engine/janitor, after the
// run's processes are dead; concurrent runs keep theirs): the registry slot of `server` when its
// jackd is dead, the segments allocated by one of `pids` (the run's jackd and clients) that is
// dead - unlinked and their entries freed, as jackd's own jack_cleanup_shm does -, and the
// /dev/shm files named after `server` (xrunlab_server_of_file). Under JACK's registry lock.
ReclaimResult reclaim_dead_server(const std::string& shm_dir, const std::string& server,
                                  const std::vector<pid_t>& pids,
                                  const RegistryLockSpec& lock = {});

// JACK2's metadata database, SHM_DIR/jack_db-<uid> (common/JackMetadata.cpp): a Berkeley DB
// environment that jackd opens at its start and every client inside jack_client_open, and that
// jackd removes when it exits. A JACK program killed while it holds one of the environment's
// locks, or while it creates metadata.db, leaves it so that every later JACK program of this
// user waits for ever. Removes every file in the folder, and the folder, when no live process
// has a file of it mapped (read from PROC_DIR/<pid>/maps), so nobody can be inside it; the next
// JACK program creates it anew. Returns the folder removed, or "" when there was none or it is
// in use (then *in_use_by names a user, if given).
std::string remove_unused_jack_metadata_db(const std::string& shm_dir, uid_t uid,
                                           const std::string& proc_dir = "/proc",
                                           pid_t* in_use_by = nullptr);

}  // namespace xrunlab
