// The ways the exhaustive search can keep its visited states, as a user
// names them (`explore --storage`); state_store.h keeps them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::explore {

enum class Storage { kFingerprint, kExact, kHashCompact, kBitstate };

struct StorageOptions {
  Storage kind = Storage::kFingerprint;
  int bitstate_log2_bits = 30;  // 2^30 bits: 128 MiB
  int bitstate_hashes = 3;      // bits per state, as SPIN's default -k3
};

// "fingerprint", "exact", "hash-compact", "bitstate".
const char* StorageName(Storage kind);
std::optional<Storage> ParseStorage(std::string_view name);
std::vector<std::string> StorageNames();

}  // namespace lockstep::explore
