// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/jack/jack_registry.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "engine/base/errno_text.hpp"
#include "engine/base/proc_pid_stat.hpp"
#include "engine/base/remove_tree.hpp"

namespace xrunlab {
namespace {

// JACK2 common/shm.h and shm.c (1.9.x, POSIX shm, non-Apple).
constexpr uint32_t kMagic = 0x4a41434b;  // "JACK"
constexpr size_t kMaxServers = 8;
constexpr size_t kNameSize = 256 + 1;            // JACK_SERVER_NAME_SIZE + 1
constexpr size_t kHeaderFields = size_t{6} * 4;  // magic, protocol, type, size, hdr_len, entry_len
constexpr size_t kEntrySize = (sizeof(int32_t) + kNameSize + 3) / 4 * 4;  // pid_t + name, aligned
constexpr size_t kHeaderLen = kHeaderFields + kMaxServers * kEntrySize;
constexpr size_t kMaxSegments = 256;  // MAX_SHM_ID
// jack_shm_registry_t: int16_t index, pid_t allocator, int32 size, char id[255] (POSIX), aligned.
constexpr size_t kSegmentEntrySize = size_t{4 + 4 + 4 + 255 + 3} / 4 * 4;
constexpr size_t kSegmentIdOffset = 12, kSegmentIdSize = 255;

uint32_t read_u32(std::string_view image, size_t off) {
  uint32_t v = 0;
  std::memcpy(&v, image.data() + off, sizeof v);
  return v;
}

// A zombie (exited, not yet reaped by its new parent) counts as dead: it holds nothing.
bool process_alive(pid_t pid) {
  if (pid <= 0 || (::kill(pid, 0) != 0 && errno != EPERM)) return false;
  const auto stat = read_proc_pid_stat(pid);
  return !stat || stat->state != 'Z';  // exists, and /proc says nothing more: alive
}

// The server name inside "jack-<uid>:<name>:".
std::string server_of(std::string_view entry_name) {
  const auto first = entry_name.find(':');
  if (first == std::string_view::npos) return "";
  std::string_view rest = entry_name.substr(first + 1);
  if (!rest.empty() && rest.back() == ':') rest.remove_suffix(1);
  return std::string(rest);
}

// The engine pid in "xrunlab-<pid>-<n>", or 0.
pid_t engine_pid_of(std::string_view server) {
  if (server.rfind("xrunlab-", 0) != 0) return 0;
  server.remove_prefix(8);
  const auto dash = server.find('-');
  if (dash == std::string_view::npos || dash == 0) return 0;
  pid_t pid = 0;
  for (char c : server.substr(0, dash)) {
    if (c < '0' || c > '9') return 0;
    pid = pid * 10 + (c - '0');
  }
  return pid;
}

// "xrunlab-<pid>-<n>" at the start of `s`, or "".
std::string leading_server_name(std::string_view s) {
  if (s.rfind("xrunlab-", 0) != 0) return "";
  size_t i = 8;
  auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > from;
  };
  if (!digits() || i >= s.size() || s[i] != '-') return "";
  ++i;
  if (!digits()) return "";
  return std::string(s.substr(0, i));
}

// JACK's registry lock, as libjack takes it (jack_shm_lock_registry), but never waiting for ever:
// the semaphore is open to every user, so anyone can hold it.
class RegistryLock {
 public:
  explicit RegistryLock(const RegistryLockSpec& spec) {
    semid_ = ::semget(spec.key, 0, 0);
    if (semid_ < 0) return;  // no JACK program ever ran: nothing to lock, nothing to clean
    sembuf op{0, -1, SEM_UNDO};
    const auto deadline = std::chrono::steady_clock::now() + spec.wait;
    int rc = -1;
    do {
      const auto left =
          std::max(std::chrono::nanoseconds(0),
                   std::chrono::nanoseconds(deadline - std::chrono::steady_clock::now()));
      timespec ts{static_cast<time_t>(left.count() / 1000000000),
                  static_cast<long>(left.count() % 1000000000)};
      rc = ::semtimedop(semid_, &op, 1, &ts);
    } while (rc != 0 && errno == EINTR);
    locked_ = rc == 0;
    if (locked_) return;
    const int err = errno;
    const std::string sem = fmt::format("JACK's registry lock (System V semaphore key {:#x})",
                                        static_cast<unsigned>(spec.key));
    if (err == EAGAIN) {
      timed_out_ = true;
      const int holder = ::semctl(semid_, 0, GETPID);  // the last to take it: the holder
      why_ = fmt::format(
          "{} is held{} for more than {} ms; end that process, or remove the semaphore (ipcrm -S "
          "{:#x}) if no JACK program runs",
          sem, holder > 0 ? fmt::format(" by pid {}", holder) : "", spec.wait.count(),
          static_cast<unsigned>(spec.key));
    } else {
      why_ = fmt::format("cannot take {}: {}", sem, errno_text(err));
    }
  }
  ~RegistryLock() {
    if (locked_) {
      sembuf op{0, 1, SEM_UNDO};
      ::semop(semid_, &op, 1);
    }
  }
  RegistryLock(const RegistryLock&) = delete;
  RegistryLock& operator=(const RegistryLock&) = delete;
  // Usable: taken, or there is no lock (and so no JACK program).
  bool ok() const { return semid_ < 0 || locked_; }
  bool timed_out() const { return timed_out_; }
  const std::string& why() const { return why_; }

 private:
  int semid_ = -1;
  bool locked_ = false;
  bool timed_out_ = false;
  std::string why_;
};

// SHM_DIR/jack-shm-registry opened for reading and writing, only when it is a regular file of
// root or of this (effective) user, never through a symbolic link: anyone can create it before
// JACK does, and what it names is unlinked. -1 when there is none (*why "") or it is refused
// (*why the one line saying so).
int open_registry(const std::string& path, std::string* why) {
  why->clear();
  const int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  const std::string refused = "not using JACK's registry " + path + ": ";
  const std::string what_to_do = " (remove it if no JACK program runs)";
  if (fd < 0) {
    if (errno == ELOOP)
      *why = refused + "it is a symbolic link" + what_to_do;
    else if (errno != ENOENT)
      *why = "cannot open JACK's registry " + path + ": " + errno_text(errno);
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *why = "cannot inspect JACK's registry " + path + ": " + errno_text(errno);
  } else if (!S_ISREG(st.st_mode)) {
    *why = refused + "it is not a regular file" + what_to_do;
  } else if (st.st_uid != 0 && st.st_uid != ::geteuid()) {
    *why = refused + "it belongs to uid " + std::to_string(st.st_uid) + ", not to root or uid " +
           std::to_string(::geteuid()) + what_to_do;
  } else {
    return fd;
  }
  ::close(fd);
  return -1;
}

// Unlinks SHM_DIR/NAME only when it is a file of this (effective) user, not a folder: a name
// read from the registry or the folder (both open to every user) never removes another user's.
bool unlink_own_file(const std::string& path) {
  return remove_owned_file(path, ::geteuid());
}

}  // namespace

std::optional<std::string> xrunlab_server_of_file(std::string_view file, uid_t uid) {
  const std::string u = std::to_string(uid);
  const std::string sem = "jack_sem." + u + "_";  // jack_sem.<uid>_<server>_<client>
  if (file.rfind(sem, 0) == 0) {
    const std::string server = leading_server_name(file.substr(sem.size()));
    if (!server.empty() && file.size() > sem.size() + server.size() &&
        file[sem.size() + server.size()] == '_') {
      return server;
    }
    return std::nullopt;
  }
  // The virtual card's record (engine/backend/vcard.hpp) and the cycle table
  // (engine/run/cycle_table_reader.hpp), both named after the run's private server.
  for (const std::string prefix : {"xrunlab-vcard-", "xrunlab-cycles-"}) {
    if (file.rfind(prefix, 0) != 0) continue;
    const std::string server = leading_server_name(file.substr(prefix.size()));
    if (!server.empty() && file.size() == prefix.size() + server.size()) return server;
    return std::nullopt;
  }
  // jack_<server>_<uid>_<n>: a request socket; jack_<server>-<client>_<uid>_0: the notification
  // socket of one of the run's clients (engine/run/client_fleet.hpp names them so).
  if (file.rfind("jack_", 0) == 0) {
    const std::string server = leading_server_name(file.substr(5));
    std::string_view rest = file.substr(std::min(file.size(), 5 + server.size()));
    if (!server.empty() && !rest.empty() && rest[0] == '-') {
      size_t i = 1;
      while (i < rest.size() &&
             (std::isalnum(static_cast<unsigned char>(rest[i])) != 0 || rest[i] == '-')) {
        ++i;
      }
      rest = i > 1 ? rest.substr(i) : std::string_view{};
    }
    if (!server.empty() && rest.rfind("_" + u + "_", 0) == 0 && rest.size() > u.size() + 2 &&
        rest.find_first_not_of("0123456789", u.size() + 2) == std::string_view::npos) {
      return server;
    }
  }
  return std::nullopt;
}

std::optional<std::vector<RegistryEntry>> parse_jack_registry(std::string_view image,
                                                              std::string* why) {
  auto fail = [&](const char* msg) -> std::optional<std::vector<RegistryEntry>> {
    if (why != nullptr) *why = msg;
    return std::nullopt;
  };
  if (image.size() < kHeaderLen) return fail("registry too small");
  if (read_u32(image, 0) != kMagic) return fail("registry magic is not JACK's");
  if (read_u32(image, 16) != kHeaderLen) return fail("registry header has an unknown layout");
  std::vector<RegistryEntry> out;
  for (size_t i = 0; i < kMaxServers; ++i) {
    const size_t off = kHeaderFields + i * kEntrySize;
    RegistryEntry e;
    e.slot = static_cast<int>(i);
    e.pid = static_cast<pid_t>(read_u32(image, off));
    const char* name = image.data() + off + sizeof(int32_t);
    e.name.assign(name, strnlen(name, kNameSize));
    out.push_back(e);
  }
  return out;
}

std::optional<std::vector<ShmSegment>> parse_jack_segments(std::string_view image,
                                                           std::string* why) {
  auto fail = [&](const char* msg) -> std::optional<std::vector<ShmSegment>> {
    if (why != nullptr) *why = msg;
    return std::nullopt;
  };
  if (image.size() < kHeaderLen) return fail("registry too small");
  if (read_u32(image, 0) != kMagic) return fail("registry magic is not JACK's");
  if (read_u32(image, 16) != kHeaderLen) return fail("registry header has an unknown layout");
  if (read_u32(image, 20) != kSegmentEntrySize) return fail("segment entries of unknown size");
  if (image.size() < kHeaderLen + kMaxSegments * kSegmentEntrySize) {
    return fail("registry too small for its segments");
  }
  std::vector<ShmSegment> out;
  for (size_t i = 0; i < kMaxSegments; ++i) {
    const size_t off = kHeaderLen + i * kSegmentEntrySize;
    ShmSegment s;
    int16_t index = 0;
    std::memcpy(&index, image.data() + off, sizeof index);
    s.index = index;
    s.allocator = static_cast<pid_t>(read_u32(image, off + 4));
    s.size = read_u32(image, off + 8);
    const char* id = image.data() + off + kSegmentIdOffset;
    s.id.assign(id, strnlen(id, kSegmentIdSize));
    out.push_back(std::move(s));
  }
  return out;
}

bool is_xrunlab_entry(std::string_view name, uid_t uid) {
  const std::string prefix = "jack-" + std::to_string(uid) + ":xrunlab-";
  return name.rfind(prefix, 0) == 0;
}

ReclaimResult reclaim_stale_xrunlab_servers(const std::string& shm_dir,
                                            const std::string& finished_server,
                                            const RegistryLockSpec& lock_spec) {
  ReclaimResult result;
  const uid_t uid = ::getuid();
  {
    RegistryLock lock(lock_spec);
    const std::string path = shm_dir + "/jack-shm-registry";
    const int fd = lock.ok() ? open_registry(path, &result.warning) : -1;
    if (!lock.ok()) {
      result.warning = lock.why();
      result.lock_timed_out = lock.timed_out();
    } else if (fd >= 0) {
      struct stat st {};
      if (::fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= kHeaderLen) {
        void* map = ::mmap(nullptr, kHeaderLen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map != MAP_FAILED) {
          auto* bytes = static_cast<char*>(map);
          std::string why;
          const auto entries = parse_jack_registry(std::string_view(bytes, kHeaderLen), &why);
          if (!entries) {
            result.warning = "JACK registry not understood (" + why + "); left alone";
          } else {
            for (const RegistryEntry& e : *entries) {
              if (e.pid == 0 || !is_xrunlab_entry(e.name, uid) || process_alive(e.pid)) continue;
              // A dead (or zombie) jackd whose run is still alive: that run is stopping it
              // and frees its own entry (as `finished_server`); another run leaves it alone.
              const std::string server = server_of(e.name);
              if (server != finished_server && process_alive(engine_pid_of(server))) continue;
              // Exactly what jack_register_server does to a dead server's entry.
              std::memset(bytes + kHeaderFields + static_cast<size_t>(e.slot) * kEntrySize, 0,
                          kEntrySize);
              result.reclaimed.push_back(server);
            }
          }
          ::munmap(map, kHeaderLen);
        }
      }
    }
    if (fd >= 0) ::close(fd);
  }
  // Files jackd leaves in /dev/shm when it dies uncleanly: semaphores and request sockets.
  if (DIR* dir = ::opendir(shm_dir.c_str())) {
    while (dirent* d = ::readdir(dir)) {
      const std::string file = d->d_name;
      const auto server = xrunlab_server_of_file(file, uid);
      if (!server) continue;
      const bool finished = !finished_server.empty() && *server == finished_server;
      if (!finished && process_alive(engine_pid_of(*server))) continue;  // a live run owns it
      if (unlink_own_file(shm_dir + "/" + file)) result.removed_files.push_back(file);
    }
    ::closedir(dir);
  }
  return result;
}

ReclaimResult reclaim_dead_server(const std::string& shm_dir, const std::string& server,
                                  const std::vector<pid_t>& pids,
                                  const RegistryLockSpec& lock_spec) {
  ReclaimResult result;
  if (server.empty()) return result;
  const uid_t uid = ::getuid();
  const std::string own_name = "jack-" + std::to_string(uid) + ":" + server + ":";
  const std::string segment_prefix = "/jack-" + std::to_string(uid) + "-";
  auto ours_and_dead = [&](pid_t p) {
    return p > 0 && std::find(pids.begin(), pids.end(), p) != pids.end() && !process_alive(p);
  };
  {
    RegistryLock lock(lock_spec);
    const std::string path = shm_dir + "/jack-shm-registry";
    const int fd = lock.ok() ? open_registry(path, &result.warning) : -1;
    const size_t len = kHeaderLen + kMaxSegments * kSegmentEntrySize;
    struct stat st {};
    if (!lock.ok()) {
      result.warning = lock.why();
      result.lock_timed_out = lock.timed_out();
    } else if (fd >= 0 && ::fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= len) {
      void* map = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (map != MAP_FAILED) {
        auto* bytes = static_cast<char*>(map);
        const std::string_view image(bytes, len);
        std::string why;
        const auto servers = parse_jack_registry(image, &why);
        const auto segments = servers ? parse_jack_segments(image, &why) : std::nullopt;
        if (!servers || !segments) {
          result.warning = "JACK registry not understood (" + why + "); left alone";
        } else {
          for (const RegistryEntry& e : *servers) {
            if (e.pid == 0 || e.name != own_name || process_alive(e.pid)) continue;
            std::memset(bytes + kHeaderFields + static_cast<size_t>(e.slot) * kEntrySize, 0,
                        kEntrySize);
            result.reclaimed.push_back(server);
          }
          for (size_t i = 0; i < segments->size(); ++i) {
            const ShmSegment& g = (*segments)[i];
            if (!ours_and_dead(g.allocator) || g.id.rfind(segment_prefix, 0) != 0 ||
                g.id.find('/', 1) != std::string::npos) {
              continue;
            }
            // What jack_cleanup_shm does to the segment of a dead allocator (only a file of
            // this user: whatever the registry says, another user's file stays).
            if (unlink_own_file(shm_dir + g.id)) result.removed_files.push_back(g.id.substr(1));
            char* entry = bytes + kHeaderLen + i * kSegmentEntrySize;
            std::memset(entry + 4, 0, kSegmentEntrySize - 4);  // allocator, size, id; index stays
          }
        }
        ::munmap(map, len);
      }
    }
    if (fd >= 0) ::close(fd);
  }
  if (DIR* dir = ::opendir(shm_dir.c_str())) {
    while (dirent* d = ::readdir(dir)) {
      const std::string file = d->d_name;
      const auto of = xrunlab_server_of_file(file, uid);
      if (!of || *of != server) continue;
      if (unlink_own_file(shm_dir + "/" + file)) result.removed_files.push_back(file);
    }
    ::closedir(dir);
  }
  return result;
}

namespace {

// Has `pid` a file under `dir_slash` ("/dev/shm/jack_db-0/") mapped? A maps file that cannot be
// read (the process is gone, or hidden from us as init is in some containers even from root)
// counts as no: a JACK program of this user is readable to it.
bool maps_a_file_under(const std::string& proc_dir, const char* pid, const std::string& dir_slash) {
  const int fd = ::open((proc_dir + "/" + pid + "/maps").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  // Line by line through a fixed buffer: a path never spans more than one line.
  char buf[8192];
  std::string line;
  bool found = false;
  ssize_t n = 0;
  while (!found && (n = ::read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n && !found; ++i) {
      if (buf[i] != '\n') {
        line.push_back(buf[i]);
        continue;
      }
      found = line.find(dir_slash) != std::string::npos;
      line.clear();
    }
  }
  if (!found && !line.empty()) found = line.find(dir_slash) != std::string::npos;
  ::close(fd);
  return found;
}

}  // namespace

std::string remove_unused_jack_metadata_db(const std::string& shm_dir, uid_t uid,
                                           const std::string& proc_dir, pid_t* in_use_by) {
  const std::string dir = shm_dir + "/jack_db-" + std::to_string(uid);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != uid) return "";
  const std::string dir_slash = dir + "/";
  if (DIR* proc = ::opendir(proc_dir.c_str())) {
    pid_t user = 0;
    while (dirent* e = ::readdir(proc)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      if (maps_a_file_under(proc_dir, e->d_name, dir_slash)) {
        user = static_cast<pid_t>(std::atoi(e->d_name));
        break;
      }
    }
    ::closedir(proc);
    if (user != 0) {
      if (in_use_by != nullptr) *in_use_by = user;
      return "";
    }
  } else {
    return "";  // no /proc: cannot tell who uses it
  }
  // Every file in it, then the folder: the four jackd removes at its exit (metadata.db,
  // __db.001-003) and any other Berkeley DB left, such as __db.metadata.db, the temporary file of
  // a metadata.db whose creation was killed (left there, it makes the next creation wait for ever).
  bool removed = false;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string f = e->d_name;
      if (f == "." || f == "..") continue;
      removed = ::unlink((dir_slash + f).c_str()) == 0 || removed;
    }
    ::closedir(d);
  }
  return ::rmdir(dir.c_str()) == 0 || removed ? dir : "";
}

}  // namespace xrunlab
