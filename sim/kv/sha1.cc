#include "sim/kv/sha1.h"

#include <nettle/sha1.h>

namespace lockstep::kv {

void Sha1HexInto(const char* data, size_t n, char out[41]) noexcept {
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, n, reinterpret_cast<const uint8_t*>(data));
  uint8_t digest[SHA1_DIGEST_SIZE];
  sha1_digest(&ctx, SHA1_DIGEST_SIZE, digest);
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < SHA1_DIGEST_SIZE; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xf];
  }
  out[40] = '\0';
}

std::string Sha1Hex(std::string_view data) {
  char hex[41];
  Sha1HexInto(data.data(), data.size(), hex);
  return std::string(hex, 40);
}

}  // namespace lockstep::kv
