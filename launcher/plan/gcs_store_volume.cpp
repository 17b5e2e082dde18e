#include "plan/gcs_store_volume.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <spdlog/spdlog.h>

#include "util/durable_write.hpp"
#include "util/fatal.hpp"
#include "util/parse.hpp"
#include "util/strings.hpp"

namespace launcher {

namespace {

// linux/magic.h
constexpr std::uint64_t k_tmpfs = 0x01021994;
constexpr std::uint64_t k_ramfs = 0x858458f6;
constexpr std::uint64_t k_overlay = 0x794c7630;

// What Ray 2.60 writes in the path (docs/run.md): its two databases and its session marker.
constexpr const char* k_ray_entries[] = {"kv", "tables", "session_name"};

// A file's text, at most `max` bytes, trailing whitespace dropped; nullopt when it is absent.
std::optional<std::string> read_small(const std::string& file, std::size_t max = 4096) {
  util::Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd.valid()) {
    return std::nullopt;
  }
  std::string text(max, '\0');
  const ssize_t n = ::read(fd.get(), text.data(), text.size());
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) {
    text.pop_back();
  }
  return text;
}

std::string errno_text(const char* step) { return std::string(step) + ": " + std::strerror(errno); }

// Create, write, fsync the file, fsync the directory, unlink: what RocksDB does on every write.
std::string probe_writes(const std::string& path) {
  const std::string probe = path + "/.raylaunch-probe-" + std::to_string(::getpid());
  util::Fd fd(::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) {
    return errno_text("create a file");
  }
  std::string result;
  const std::string block(4096, 'r');
  if (::write(fd.get(), block.data(), block.size()) != static_cast<ssize_t>(block.size())) {
    result = errno == 0 ? "write: short write" : errno_text("write");
  } else if (::fsync(fd.get()) != 0) {
    result = errno_text("fsync");
  }
  fd.reset();
  if (::unlink(probe.c_str()) != 0 && result.empty()) {
    result = errno_text("unlink");
  }
  if (result.empty()) {
    util::Fd dir(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid() || ::fsync(dir.get()) != 0) {
      result = errno_text("fsync the directory");
    }
  }
  return result;
}

const char* memory_fs(std::uint64_t type) {
  return type == k_tmpfs ? "tmpfs" : type == k_ramfs ? "ramfs" : nullptr;
}

[[noreturn]] void refuse(const std::string& reason, const std::string& fix) {
  throw Fatal(exit_code::config, "GCS store: " + reason + " (fix: " + fix + ")");
}

}  // namespace

StoreVolumeFacts read_store_volume(const std::string& path) {
  StoreVolumeFacts f;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    f.stat_errno = errno;
    return f;
  }
  f.directory = S_ISDIR(st.st_mode);
  if (!f.directory) {
    return f;
  }
  struct statfs sf {};
  if (::statfs(path.c_str(), &sf) == 0) {
    f.fs_type = static_cast<std::uint64_t>(sf.f_type);
    f.free_bytes = static_cast<std::uint64_t>(sf.f_bavail) * static_cast<std::uint64_t>(sf.f_bsize);
  }
  f.write_error = probe_writes(path);
  f.owner = read_small(path + "/" + k_store_owner_file);
  for (const char* entry : k_ray_entries) {
    struct stat e {};
    if (::lstat((path + "/" + entry).c_str(), &e) == 0) {
      f.ray_files.emplace_back(entry);
    }
  }
  f.session_name = read_small(path + "/session_name", 256).value_or("");
  return f;
}

std::optional<StoreRefusal> judge_store_volume(const std::string& path, const StoreVolumeFacts& f,
                                               const PrepareGcsStore& want) {
  const std::string p = util::printable(path, 256);
  const std::string mount = "mount a PersistentVolumeClaim of the head's own at " + p +
                            ", or set RAY_gcs_storage_path to where it is mounted";
  if (f.stat_errno == ENOENT) {
    return StoreRefusal{p + " does not exist", mount};
  }
  if (f.stat_errno != 0) {
    return StoreRefusal{p + " cannot be read: " + std::strerror(f.stat_errno), mount};
  }
  if (!f.directory) {
    return StoreRefusal{p + " is not a directory", "point RAY_gcs_storage_path at a directory on the volume"};
  }
  if (const char* fs = memory_fs(f.fs_type)) {
    return StoreRefusal{p + " is on " + fs + ": the store would be in memory, counted against the pod's, and lost "
                                             "with the pod (fsync does nothing there)",
                        mount};
  }
  if (f.fs_type == k_overlay) {
    return StoreRefusal{p + " is on the container's own filesystem (overlay): the store would be lost when the "
                            "container restarts, and a restarted head would be a new cluster",
                        mount};
  }
  if (!f.write_error.empty()) {
    return StoreRefusal{p + " is not writable with a working fsync (" + f.write_error +
                            "): Ray's GCS fsyncs every write there and would crash at start",
                        "mount the volume read-write, give the container's user write access (fsGroup), or use a "
                        "filesystem whose fsync works"};
  }
  if (f.free_bytes < want.min_free) {
    return StoreRefusal{p + " has " + util::format_size(f.free_bytes) + " free, below the floor of " +
                            util::format_size(want.min_free) + " (RAYLAUNCH_GCS_STORAGE_MIN_FREE): RocksDB fails "
                            "writes on a full volume, and the GCS with them",
                        "grow the PersistentVolumeClaim (or free space on it), or lower "
                        "RAYLAUNCH_GCS_STORAGE_MIN_FREE"};
  }
  const std::string session = f.session_name.empty() ? "" : ", Ray session " + util::printable(f.session_name, 96);
  if (f.owner && *f.owner != want.owner) {
    return StoreRefusal{p + " holds the GCS database of cluster " + util::printable(*f.owner, 128) + session +
                            ", not " + util::printable(want.owner, 128) +
                            "'s: Ray would load it and become that cluster",
                        "give this cluster a volume of its own, or empty " + p + " if " +
                            util::printable(*f.owner, 128) + " is gone"};
  }
  if (!f.owner && !f.ray_files.empty()) {
    return StoreRefusal{p + " holds a Ray GCS database (" + util::join(f.ray_files, ", ") + session +
                            ") that no raylaunch claimed for a cluster: Ray would load it and become whatever "
                            "cluster wrote it",
                        "empty " + p + " to start a new cluster, or write " + util::printable(want.owner, 128) +
                            " into " + p + "/" + k_store_owner_file + " to keep that database"};
  }
  return std::nullopt;
}

util::Fd prepare_gcs_store(const PrepareGcsStore& want) {
  const StoreVolumeFacts facts = read_store_volume(want.path);
  if (const auto refusal = judge_store_volume(want.path, facts, want)) {
    refuse(refusal->reason, refusal->fix);
  }
  const std::string p = util::printable(want.path, 256);
  const std::string lock_path = want.path + "/" + k_store_lock_file;
  util::Fd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!lock.valid()) {
    refuse("cannot open the lock file " + util::printable(lock_path, 256) + ": " + std::strerror(errno),
           "give the container's user write access to " + p);
  }
  // flock: one lock per open file, released when PID 1 exits however it exits. On NFS the
  // client turns it into a lock on the server (Linux 2.6.12+), so two heads on two nodes
  // sharing an EFS volume are refused too.
  if (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    const std::string holder = read_small(lock_path, 32).value_or("");
    if (e == EWOULDBLOCK) {
      refuse(p + " is in use by another raylaunch" + (holder.empty() ? "" : " (pid " + util::printable(holder) + ")") +
                 ": one GCS writes a store, and a second would corrupt it or fail on RocksDB's lock",
             "run one head per volume: another pod (or container) of this cluster still holds it, or another "
             "cluster was given the same PersistentVolumeClaim");
    }
    refuse("cannot lock " + util::printable(lock_path, 256) + ": " + std::strerror(e),
           "use a filesystem that supports flock (a block volume such as EBS, or NFSv4)");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock.get(), 0) != 0 || ::pwrite(lock.get(), pid.data(), pid.size(), 0) < 0) {
    spdlog::debug("could not write the pid into {}: {}", lock_path, std::strerror(errno));
  }
  if (!facts.owner) {
    if (const std::string err = util::write_durably(want.path, k_store_owner_file, want.owner); !err.empty()) {
      refuse("cannot claim " + p + " for " + util::printable(want.owner, 128) + " (" + err + ")",
             "give the container's user write access to " + p);
    }
    spdlog::info("GCS store: {} is new, claimed for {}", want.path, want.owner);
  } else {
    spdlog::info("GCS store: {} belongs to {}{}: the head comes back as the same cluster", want.path, want.owner,
                 facts.ray_files.empty() ? " (no database yet)" : "");
  }
  return lock;
}

}  // namespace launcher
