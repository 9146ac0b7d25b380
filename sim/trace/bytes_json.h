// Redis's strings are bytes, and a Lua algorithm or a script can make any:
// a key, a value, a command's argument or a reply need not be UTF-8, which
// JSON text cannot hold. A trace writes such a string as {"base64": "..."}
// (nettle's base64) and every other string as itself, so a trace carries
// every byte and reads back as it was written.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lockstep::trace {

nlohmann::json BytesJson(const std::string& bytes);
nlohmann::json BytesListJson(const std::vector<std::string>& list);

// A string, or {"base64": TEXT}. Throws json::JsonError at `pointer` for
// anything else.
std::string ReadBytes(const nlohmann::json& j, const std::string& pointer);
std::vector<std::string> ReadBytesList(const nlohmann::json& j, const std::string& pointer);

}  // namespace lockstep::trace
