#include "sim/process/static_program.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "sim/process/child_process.h"

namespace lockstep::process {
namespace {

// Whether the ELF image that starts with `head` (the file at `file`) has a
// program interpreter; true when it cannot tell (not ELF, unreadable).
template <class Ehdr, class Phdr>
bool HasInterpreter(std::ifstream& file, const std::string& head) {
  if (head.size() < sizeof(Ehdr)) return true;
  Ehdr e;
  std::memcpy(&e, head.data(), sizeof e);
  if (e.e_phentsize != sizeof(Phdr) || e.e_phnum == 0) return true;
  std::vector<Phdr> ph(e.e_phnum);
  file.clear();
  file.seekg(static_cast<std::streamoff>(e.e_phoff));
  if (!file.read(reinterpret_cast<char*>(ph.data()),
                 static_cast<std::streamsize>(ph.size() * sizeof(Phdr)))) {
    return true;
  }
  for (const Phdr& p : ph) {
    if (p.p_type == PT_INTERP) return true;
  }
  return false;
}

}  // namespace

std::string WhyNotPreloadable(const std::string& program, const std::string& path,
                              const std::string& cwd) {
  std::string file = program;
  for (int depth = 0; depth < 4 && !file.empty(); ++depth) {
    std::ifstream in(file, std::ios::binary);
    std::string head(256, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    if (head.size() >= SELFMAG && std::memcmp(head.data(), ELFMAG, SELFMAG) == 0 &&
        head.size() > EI_CLASS) {
      const bool has = head[EI_CLASS] == ELFCLASS64
                           ? HasInterpreter<Elf64_Ehdr, Elf64_Phdr>(in, head)
                           : HasInterpreter<Elf32_Ehdr, Elf32_Phdr>(in, head);
      return has ? "" : file + " is statically linked";
    }
    if (!head.starts_with("#!")) return "";
    // #!INTERPRETER [ARG]: the interpreter runs; env runs its argument.
    std::istringstream line(head.substr(2, head.find('\n') - 2));
    std::string interpreter, arg;
    line >> interpreter >> arg;
    if (interpreter.ends_with("/env") && !arg.empty() && arg[0] != '-') {
      interpreter = FindProgram(arg, path, cwd);
    }
    file = interpreter;
  }
  return "";
}

}  // namespace lockstep::process
