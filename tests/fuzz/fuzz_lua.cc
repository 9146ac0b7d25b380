// libFuzzer target: bytes as a Lua algorithm or, after "--eval", a script
// (see entry_points.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/entry_points.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lockstep::fuzz::LuaInput(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
