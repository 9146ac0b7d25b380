#include "sim/run/trace_folders.h"

#include <filesystem>
#include <utility>

#include "sim/process/child_process.h"
#include "sim/run/output_file.h"

namespace lockstep::run {
namespace {

namespace fs = std::filesystem;

// `j`'s member `name`, or nullptr (for a null `j` too).
const nlohmann::json* Member(const nlohmann::json* j, const char* name) {
  return j != nullptr && j->is_object() && j->contains(name) ? &(*j)[name] : nullptr;
}

// The "cwd" of client `i`'s process in `scenario`, or nullptr. Looks
// only, adding no member.
const nlohmann::json* ProcessFolder(const nlohmann::json& scenario, size_t i) {
  const nlohmann::json* clients = Member(&scenario, "clients");
  if (clients == nullptr || !clients->is_array() || i >= clients->size()) return nullptr;
  const nlohmann::json* cwd = Member(Member(Member(&(*clients)[i], "algorithm"), "process"), "cwd");
  return cwd != nullptr && cwd->is_string() ? cwd : nullptr;
}
nlohmann::json* ProcessFolder(nlohmann::json& scenario, size_t i) {
  return const_cast<nlohmann::json*>(ProcessFolder(std::as_const(scenario), i));
}

size_t ClientCount(const nlohmann::json& scenario) {
  const nlohmann::json* clients = Member(&scenario, "clients");
  return clients != nullptr && clients->is_array() ? clients->size() : 0;
}

fs::path Absolute(const fs::path& p) {
  std::error_code ec;
  const fs::path a = process::AbsoluteFolder(p, ec);
  return ec ? (p.empty() ? fs::path(".") : p).lexically_normal() : a;
}

// The folder of `file`, absolute.
fs::path FolderOf(const std::string& file) { return Absolute(fs::path(file).parent_path()); }

bool Within(const fs::path& p, const fs::path& root) {
  const fs::path rel = p.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

fs::path DeepestCommon(const fs::path& a, const fs::path& b) {
  fs::path common;
  for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end() && *i == *j; ++i, ++j)
    common /= *i;
  return common;
}

}  // namespace

std::string TraceTextFor(const trace::Trace& t, const std::string& scenario_file,
                         const std::string& trace_path) {
  if (IsStandardOutput(trace_path)) return trace::ToJsonText(t);
  trace::Trace filed = t;
  const fs::path trace_folder = FolderOf(trace_path);
  std::error_code ec;
  const fs::path here = Absolute(fs::current_path(ec));
  const fs::path read_folder = FolderOf(scenario_file);
  for (size_t i = 0; i < ClientCount(filed.scenario); ++i) {
    nlohmann::json* cwd = ProcessFolder(filed.scenario, i);
    if (cwd == nullptr || !fs::path(cwd->get<std::string>()).is_absolute()) continue;
    const fs::path folder = Absolute(cwd->get<std::string>());
    const fs::path common = DeepestCommon(folder, trace_folder);
    if (common.relative_path().empty()) continue;  // only "/" in common
    const fs::path read_common = DeepestCommon(folder, read_folder);
    const bool as_near = !read_common.relative_path().empty() && Within(common, read_common);
    if (!as_near && !(!ec && Within(common, here))) continue;
    *cwd = folder.lexically_relative(trace_folder).string();
  }
  return trace::ToJsonText(filed);
}

void AdoptRecordedFolders(nlohmann::json& replayed, const nlohmann::json& recorded,
                          const std::string& trace_path) {
  const fs::path trace_folder = FolderOf(trace_path);
  for (size_t i = 0; i < ClientCount(replayed); ++i) {
    nlohmann::json* mine = ProcessFolder(replayed, i);
    const nlohmann::json* theirs = ProcessFolder(recorded, i);
    if (mine == nullptr || theirs == nullptr) continue;
    const fs::path written = theirs->get<std::string>();
    if (written.is_relative() &&
        Absolute(trace_folder / written) == Absolute(mine->get<std::string>()))
      *mine = *theirs;
  }
}

}  // namespace lockstep::run
