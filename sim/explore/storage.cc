#include "sim/explore/storage.h"

namespace lockstep::explore {

namespace {
constexpr Storage kStorages[] = {Storage::kFingerprint, Storage::kExact, Storage::kHashCompact,
                                 Storage::kBitstate};
}  // namespace

const char* StorageName(Storage kind) {
  switch (kind) {
    case Storage::kFingerprint:
      return "fingerprint";
    case Storage::kExact:
      return "exact";
    case Storage::kHashCompact:
      return "hash-compact";
    case Storage::kBitstate:
      return "bitstate";
  }
  return "?";
}

std::optional<Storage> ParseStorage(std::string_view name) {
  for (Storage s : kStorages) {
    if (name == StorageName(s)) return s;
  }
  return std::nullopt;
}

std::vector<std::string> StorageNames() {
  std::vector<std::string> names;
  for (Storage s : kStorages) names.emplace_back(StorageName(s));
  return names;
}

}  // namespace lockstep::explore
