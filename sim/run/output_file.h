// Every file lockstep writes goes through here.
//
// "-" is standard output. /dev/stdout, /dev/stderr, /dev/fd/N and
// /proc/self/fd/N are those descriptors. A character device or a FIFO is
// written directly. A regular file, or a path that does not exist yet, is
// written to a temporary file in the same folder, then renamed over it, so
// that no reader ever sees a partial file; a symlink is followed, and the
// temporary is made beside its target, so the link stays a link. Nothing
// else is ever replaced: directories, sockets and block devices are refused,
// and so is any other path under /dev, /proc or /sys. A stop signal during
// the write removes the temporary (stop_signals.h).
#pragma once

#include <string>
#include <vector>

namespace lockstep::run {

// Throws base::InputError saying why `path` cannot be an output of a command
// reading `inputs`; returns if it can. Call it before doing the work. `option` names the option in
// the message ("--trace-out"). An empty path, a kind of file that is never
// written (see above) and the same file as an input (same device and inode,
// through symlinks and hard links) are refused.
void CheckOutput(const std::string& option, const std::string& path,
                 const std::vector<std::string>& inputs);

// True iff `path` is standard output ("-", /dev/stdout, ...): the caller then
// prints its own report on stderr instead.
bool IsStandardOutput(const std::string& path);

// Writes `content` to `path` as described above. Throws base::InputError
// with the reason iff it could not; then nothing was changed.
void WriteOutput(const std::string& path, const std::string& content);

}  // namespace lockstep::run
