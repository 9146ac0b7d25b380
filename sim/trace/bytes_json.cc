#include "sim/trace/bytes_json.h"

#include <nettle/base64.h>

#include "sim/base/printable.h"
#include "sim/trace/json_reader.h"

namespace lockstep::trace {
namespace {

using nlohmann::json;
namespace jr = lockstep::json;

std::string Base64(const std::string& bytes) {
  std::string out(BASE64_ENCODE_RAW_LENGTH(bytes.size()), '\0');
  base64_encode_raw(out.data(), bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data()));
  return out;
}

bool FromBase64(const std::string& text, std::string* bytes) {
  base64_decode_ctx ctx;
  base64_decode_init(&ctx);
  bytes->assign(BASE64_DECODE_LENGTH(text.size()), '\0');
  size_t length = bytes->size();
  if (!base64_decode_update(&ctx, &length, reinterpret_cast<uint8_t*>(bytes->data()), text.size(),
                            text.data()) ||
      !base64_decode_final(&ctx)) {
    return false;
  }
  bytes->resize(length);
  return true;
}

}  // namespace

json BytesJson(const std::string& bytes) {
  if (base::IsUtf8(bytes)) return bytes;
  return {{"base64", Base64(bytes)}};
}

json BytesListJson(const std::vector<std::string>& list) {
  json out = json::array();
  for (const std::string& s : list) out.push_back(BytesJson(s));
  return out;
}

std::string ReadBytes(const json& j, const std::string& pointer) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object() && j.size() == 1 && j.contains("base64") && j["base64"].is_string()) {
    std::string bytes;
    // Only what BytesJson writes: bytes that are not UTF-8, so that each
    // string has one form and a trace reads back as written.
    if (FromBase64(j["base64"].get<std::string>(), &bytes) && !base::IsUtf8(bytes) &&
        Base64(bytes) == j["base64"].get<std::string>()) {
      return bytes;
    }
    throw jr::JsonError(
        pointer + "/base64",
        "expected the base64 of bytes that are not UTF-8, got " + jr::Describe(j["base64"]));
  }
  throw jr::JsonError(pointer,
                      "expected a string, or {\"base64\": TEXT} for bytes that are not "
                      "UTF-8; got " +
                          jr::Describe(j));
}

std::vector<std::string> ReadBytesList(const json& j, const std::string& pointer) {
  if (!j.is_array()) {
    throw jr::JsonError(pointer, "expected an array of strings, got " + jr::Describe(j));
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); ++i)
    out.push_back(ReadBytes(j[i], pointer + "/" + std::to_string(i)));
  return out;
}

}  // namespace lockstep::trace
