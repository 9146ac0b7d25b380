#include "sim/run/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <sys/stat.h>

#include "sim/base/input_error.h"
#include "sim/run/stop_signals.h"

namespace lockstep::run {
namespace {

// The descriptor that `path` names itself, if it is one of the names
// Linux gives the process's own descriptors.
std::optional<int> OwnDescriptor(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.rfind(prefix, 0) != 0 || path.size() == prefix.size() ||
        path.size() > prefix.size() + 4) {
      continue;
    }
    int fd = 0;
    for (char c : path.substr(prefix.size())) {
      if (c < '0' || c > '9') return std::nullopt;
      fd = fd * 10 + (c - '0');
    }
    return fd;
  }
  return std::nullopt;
}

bool UnderSystemFolder(const std::string& path) {
  for (const char* root : {"/dev", "/proc", "/sys"}) {
    size_t n = std::strlen(root);
    if (path.compare(0, n, root) == 0 && (path.size() == n || path[n] == '/')) return true;
  }
  return false;
}

std::string Canonical(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) ? std::string(buffer) : path;
}

// How an output is written.
enum class WriteKind { kDescriptor, kDirect, kAtomic, kRefused };
struct Plan {
  WriteKind kind = WriteKind::kRefused;
  int fd = -1;         // kDescriptor
  std::string target;  // kDirect, kAtomic: the file to open or to replace
  std::string why;     // kRefused
};

Plan PlanFor(const std::string& path) {
  Plan p;
  if (path.empty()) {
    p.why = "expected a file name, got an empty one";
    return p;
  }
  if (auto fd = OwnDescriptor(path)) {
    p.kind = WriteKind::kDescriptor;
    p.fd = *fd;
    return p;
  }
  struct stat link;
  struct stat st;
  const bool exists = lstat(path.c_str(), &link) == 0;
  if (!exists) {
    // A new file: its folder must not be a system one.
    if (UnderSystemFolder(Canonical(path.substr(0, path.rfind('/') + 1) + "."))) {
      p.why = "lockstep creates nothing under /dev, /proc or /sys";
      return p;
    }
    p.kind = WriteKind::kAtomic;
    p.target = path;
    return p;
  }
  if (stat(path.c_str(), &st) != 0) {
    p.why = "is a symlink to nothing (" + std::string(std::strerror(errno)) + ")";
    return p;
  }
  const std::string real = Canonical(path);
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
    p.kind = WriteKind::kDirect;
    p.target = path;
    return p;
  }
  if (!S_ISREG(st.st_mode)) {
    p.why = std::string("is ") +
            (S_ISDIR(st.st_mode)    ? "a directory"
             : S_ISSOCK(st.st_mode) ? "a socket"
             : S_ISBLK(st.st_mode)  ? "a block device"
                                    : "not a regular file") +
            "; expected a regular file, a character device, a FIFO or \"-\" for standard output";
    return p;
  }
  if (UnderSystemFolder(path) || UnderSystemFolder(real)) {
    p.why = "is under /dev, /proc or /sys, where lockstep replaces nothing";
    return p;
  }
  p.kind = WriteKind::kAtomic;
  p.target = S_ISLNK(link.st_mode) ? real : path;
  return p;
}

// An output that could not be written: the whole reason is the message.
[[noreturn]] void Refuse(const std::string& why) { throw base::InputError("", "", why); }

void WriteAll(int fd, const std::string& content, const std::string& name) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      Refuse("cannot write " + name + ": " + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
}

void WriteAtomically(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp-XXXXXX";
  int fd;
  {
    BlockStopSignals blocked;
    fd = mkstemp(tmp.data());
    if (fd >= 0) RegisterTemporary(tmp.c_str());
  }
  if (fd < 0) Refuse("cannot create a file next to " + path + ": " + std::strerror(errno));
  auto discard = [&] {
    BlockStopSignals blocked;
    unlink(tmp.c_str());
    ForgetTemporary();
  };
  try {
    WriteAll(fd, content, tmp);
  } catch (const base::InputError&) {
    close(fd);
    discard();
    throw;
  }
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0) {
    std::string why = "cannot finish writing " + tmp + ": " + std::strerror(errno);
    discard();
    Refuse(why);
  }
  BlockStopSignals blocked;
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
    unlink(tmp.c_str());
    ForgetTemporary();
    Refuse(why);
  }
  ForgetTemporary();
}

}  // namespace

bool IsStandardOutput(const std::string& path) {
  auto fd = OwnDescriptor(path);
  return fd && *fd == 1;
}

void CheckOutput(const std::string& option, const std::string& path,
                 const std::vector<std::string>& inputs) {
  Plan p = PlanFor(path);
  if (p.kind == WriteKind::kRefused) Refuse(option + " " + path + ": " + p.why);
  struct stat out;
  if (stat(path.c_str(), &out) != 0 || !S_ISREG(out.st_mode)) return;
  for (const std::string& input : inputs) {
    struct stat in;
    if (stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
      Refuse(option + " " + path + ": is the input " + input +
             " (the same file); refusing to overwrite it");
    }
  }
}

void WriteOutput(const std::string& path, const std::string& content) {
  Plan p = PlanFor(path);
  switch (p.kind) {
    case WriteKind::kRefused:
      Refuse(path + ": " + p.why);
    case WriteKind::kDescriptor:
      WriteAll(p.fd, content, path);
      return;
    case WriteKind::kDirect: {
      int fd = open(p.target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (fd < 0) Refuse("cannot open " + path + ": " + std::strerror(errno));
      try {
        WriteAll(fd, content, path);
      } catch (const base::InputError&) {
        close(fd);
        throw;
      }
      close(fd);
      return;
    }
    case WriteKind::kAtomic:
      WriteAtomically(p.target, content);
      return;
  }
}

}  // namespace lockstep::run
