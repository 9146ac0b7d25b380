#include "sim/trace/trace.h"

#include <algorithm>

#include "sim/base/input_error.h"
#include "sim/base/limits.h"
#include "sim/base/printable.h"
#include "sim/trace/bytes_json.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/seed.h"

namespace lockstep::trace {
namespace {

using nlohmann::json;
namespace jr = lockstep::json;

json ReplyJson(const kv::Reply& r) {
  json j = {{"type", kv::TypeName(r.type)}};
  switch (r.type) {
    case kv::Reply::Type::kInteger:
      j["value"] = r.integer;
      break;
    case kv::Reply::Type::kBulk:
    case kv::Reply::Type::kStatus:
    case kv::Reply::Type::kError:
      j["value"] = BytesJson(r.text);
      break;
    case kv::Reply::Type::kArray: {
      json elements = json::array();
      for (const auto& e : r.elements) elements.push_back(ReplyJson(e));
      j["elements"] = elements;
      break;
    }
    case kv::Reply::Type::kNil:
      break;
  }
  return j;
}

kv::Reply ReplyFromJson(const json& j, const std::string& ptr) {
  jr::ObjectReader o(j, ptr);
  std::string type = o.String("type");
  if (type == "integer") return kv::Reply::Integer(o.Int("value", INT64_MIN, INT64_MAX));
  if (type == "bulk") return kv::Reply::Bulk(ReadBytes(o.Raw("value"), o.PointerOf("value")));
  if (type == "status") return kv::Reply::Status(ReadBytes(o.Raw("value"), o.PointerOf("value")));
  if (type == "error") return kv::Reply::Error(ReadBytes(o.Raw("value"), o.PointerOf("value")));
  if (type == "nil") return kv::Reply::Nil();
  if (type == "array") {
    std::vector<kv::Reply> elements;
    const json& a = o.Array("elements");
    for (size_t i = 0; i < a.size(); ++i) {
      elements.push_back(ReplyFromJson(a[i], o.PointerOf("elements") + "/" + std::to_string(i)));
    }
    return kv::Reply::Array(std::move(elements));
  }
  throw jr::JsonError(o.PointerOf("type"),
                      "expected one of integer, bulk, status, error, nil, array; got " +
                          jr::Describe(j.at("type")));
}

json KeyspaceJson(const std::vector<kv::Entry>& entries,
                  const std::map<std::string, std::string>& writers) {
  json keyspace = json::array();
  for (const kv::Entry& e : entries) {
    json entry = {{"key", BytesJson(e.key)}};
    if (e.kind == kv::Entry::Kind::kString) {
      entry["value"] = BytesJson(e.value);
    } else {
      entry[kv::KindName(e.kind)] = BytesListJson(e.items);
    }
    entry["deadline"] = e.deadline ? json(*e.deadline) : json(nullptr);
    auto w = writers.find(e.key);
    entry["writer"] = w != writers.end() ? json(w->second) : json(nullptr);
    keyspace.push_back(entry);
  }
  return keyspace;
}

std::vector<std::string> StringList(const json& j, const std::string& ptr);

std::vector<kv::Entry> KeyspaceFromJson(const jr::ObjectReader& o, const std::string& field,
                                        std::map<std::string, std::string>* writers) {
  std::vector<kv::Entry> out;
  const json& ks = o.Array(field);
  for (size_t i = 0; i < ks.size(); ++i) {
    jr::ObjectReader e(ks[i], o.PointerOf(field) + "/" + std::to_string(i));
    kv::Entry entry;
    entry.key = kv::Text(ReadBytes(e.Raw("key"), e.PointerOf("key")));
    // A list's, a hash's or a sorted set's items, flat, under its kind's
    // name; else a string's value.
    bool read_items = false;
    for (kv::Entry::Kind kind :
         {kv::Entry::Kind::kList, kv::Entry::Kind::kHash, kv::Entry::Kind::kZset}) {
      const char* name = kv::KindName(kind);
      if (read_items || !e.Has(name)) continue;
      entry.kind = kind;
      entry.items = ReadBytesList(e.Raw(name), e.PointerOf(name));
      const std::string problem = kv::ItemsProblem(entry);
      if (!problem.empty()) throw jr::JsonError(e.PointerOf(name), problem);
      read_items = true;
    }
    if (!read_items) entry.value = kv::Text(ReadBytes(e.Raw("value"), e.PointerOf("value")));
    entry.deadline = e.NullableInt("deadline", INT64_MIN / 4, INT64_MAX / 4);
    if (e.Has("writer") && !e.Raw("writer").is_null()) (*writers)[entry.key] = e.String("writer");
    out.push_back(entry);
  }
  return out;
}

json StepJson(const world::StepRecord& r, const Trace& t, int version) {
  std::vector<std::string> names;
  for (const auto& c : t.clients) names.push_back(c.name);
  json keyspace = KeyspaceJson(r.keyspace, r.writers);
  json clocks = json::object();
  for (size_t i = 0; i < r.client_clocks.size() && i < names.size(); ++i) {
    clocks[names[i]] = r.client_clocks[i];
  }
  json j = {
      {"index", r.index},
      {"actor", r.actor},
      {"command", BytesListJson(r.command)},
      {"reply", r.reply ? ReplyJson(*r.reply) : json(nullptr)},
      {"events", r.events},
      {"clock", r.global_time},
      {"client_clocks", clocks},
      {"keyspace", keyspace},
      {"in_critical_section", r.in_critical_section},
      {"holding", r.holding},
  };
  if (r.index > 0) j["action"] = world::FormatAction(r.action, names, t.server_names);
  // Only worlds with several servers have these, so one-server traces keep
  // their form.
  if (!r.server.empty()) j["server"] = r.server;
  if (!r.servers.empty()) {
    json servers = json::array();
    for (const world::ServerRecord& sv : r.servers) {
      servers.push_back({{"name", sv.name},
                         {"role", sv.role},
                         {"available", sv.available},
                         {"clock", sv.clock},
                         {"keyspace", KeyspaceJson(sv.keyspace, sv.writers)},
                         {"unreplicated", sv.unreplicated}});
    }
    j["servers"] = servers;
  }
  // Version 2: why, per step (ghosts for readers), where there is any.
  if (version >= 2 && !r.source.empty()) j["source"] = r.source;
  if (version >= 2 && !r.reasons.empty()) {
    json reasons = json::array();
    for (const world::StepRecord::Why& w : r.reasons) {
      reasons.push_back(
          {{"client", w.client}, {"text", w.reason.text}, {"source", w.reason.source}});
    }
    j["reasons"] = reasons;
  }
  return j;
}

std::vector<std::string> StringList(const json& j, const std::string& ptr) {
  if (!j.is_array())
    throw jr::JsonError(ptr, "expected an array of strings, got " + jr::Describe(j));
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); ++i) {
    out.push_back(jr::ReadString(j[i], ptr + "/" + std::to_string(i)));
  }
  return out;
}

world::StepRecord StepFromJson(const json& j, const std::string& ptr,
                               const std::vector<std::string>& names,
                               const std::vector<std::string>& server_names, int expected_index,
                               int version) {
  jr::ObjectReader o(j, ptr);
  std::vector<const char*> known = {
      "index",   "action", "actor",         "command",  "reply",
      "events",  "clock",  "client_clocks", "keyspace", "in_critical_section",
      "holding", "server", "servers"};
  if (version >= 2) {
    known.push_back("source");
    known.push_back("reasons");
  }
  o.RejectUnknown(known);
  world::StepRecord r;
  r.index = static_cast<int>(o.Int("index", expected_index, expected_index));
  if (expected_index > 0) {
    try {
      r.action = world::ParseAction(o.String("action"), names, server_names);
    } catch (const base::InputError& e) {
      throw jr::JsonError(o.PointerOf("action"), e.expected);
    }
  }
  r.actor = o.String("actor");
  r.command = ReadBytesList(o.Array("command"), o.PointerOf("command"));
  if (!o.Raw("reply").is_null()) r.reply = ReplyFromJson(o.Raw("reply"), o.PointerOf("reply"));
  r.events = StringList(o.Array("events"), o.PointerOf("events"));
  r.global_time = o.Int("clock", INT64_MIN / 4, INT64_MAX / 4);
  jr::ObjectReader clocks = o.Object("client_clocks");
  for (const std::string& n : names) {
    r.client_clocks.push_back(clocks.Int(n, INT64_MIN / 4, INT64_MAX / 4));
  }
  r.keyspace = KeyspaceFromJson(o, "keyspace", &r.writers);
  r.server = o.OptString("server").value_or("");
  if (o.Has("servers")) {
    const json& servers = o.Array("servers");
    for (size_t i = 0; i < servers.size(); ++i) {
      jr::ObjectReader sv(servers[i], o.PointerOf("servers") + "/" + std::to_string(i));
      sv.RejectUnknown({"name", "role", "available", "clock", "keyspace", "unreplicated"});
      world::ServerRecord rec;
      rec.name = sv.String("name");
      rec.role = sv.String("role");
      if (rec.role != "master" && rec.role != "replica" && rec.role != "failed") {
        throw jr::JsonError(sv.PointerOf("role"),
                            "expected master, replica or failed; got " + json(rec.role).dump());
      }
      rec.available = sv.Bool("available", true);
      rec.clock = sv.Int("clock", INT64_MIN / 4, INT64_MAX / 4);
      rec.keyspace = KeyspaceFromJson(sv, "keyspace", &rec.writers);
      rec.unreplicated = static_cast<int>(sv.Int("unreplicated", 0, INT32_MAX));
      r.servers.push_back(std::move(rec));
    }
  }
  r.in_critical_section =
      StringList(o.Array("in_critical_section"), o.PointerOf("in_critical_section"));
  r.holding = StringList(o.Array("holding"), o.PointerOf("holding"));
  r.source = o.OptString("source").value_or("");
  if (o.Has("reasons")) {
    const json& reasons = o.Array("reasons");
    for (size_t i = 0; i < reasons.size(); ++i) {
      jr::ObjectReader w(reasons[i], o.PointerOf("reasons") + "/" + std::to_string(i));
      w.RejectUnknown({"client", "text", "source"});
      world::StepRecord::Why why;
      why.client = w.String("client");
      if (std::find(names.begin(), names.end(), why.client) == names.end()) {
        throw jr::JsonError(w.PointerOf("client"),
                            "expected a client of the trace, got " + json(why.client).dump());
      }
      why.reason.text = w.String("text");
      why.reason.source = w.String("source");
      r.reasons.push_back(std::move(why));
    }
  }
  return r;
}

}  // namespace

json ToJson(const Trace& t, int version) {
  json clients = json::array();
  for (const ClientInfo& c : t.clients) {
    clients.push_back({{"name", c.name},
                       {"algorithm", c.algorithm},
                       {"skew", c.skew},
                       {"crashed_at_start", c.crashed_at_start}});
  }
  json steps = json::array();
  for (const auto& r : t.steps) steps.push_back(StepJson(r, t, version));
  json violation = nullptr;
  if (t.violation) {
    violation = {{"property", t.violation->property},
                 {"clients", t.violation->clients},
                 {"step", t.violation->step},
                 {"message", t.violation->message}};
  }
  json j = {{"format", FormatName(version)},
            {"scenario", t.scenario},
            {"seed", t.seed},
            {"clients", clients},
            {"schedule", t.schedule},
            {"steps", steps},
            {"end", t.end},
            {"violation", violation}};
  if (version >= kLassoFormatVersion) {
    j["lasso"] = t.lasso ? json{{"start", t.lasso->start}, {"length", t.lasso->length}} : json();
  }
  return j;
}

int VersionFor(const Trace& t) { return t.lasso ? kLassoFormatVersion : kFormatVersion; }

json ToJson(const Trace& t) { return ToJson(t, VersionFor(t)); }

std::string ToJsonText(const Trace& t) { return ToJson(t).dump(2) + "\n"; }

std::string FormatName(int version) { return "lockstep-trace/" + std::to_string(version); }

namespace {

// The texts a trace shows as they are (names, events, reasons, messages)
// hold no control characters: lockstep never writes one there, and a
// crafted trace must not reach a terminal through them. Data (commands,
// replies, keys and values) may hold any bytes: it is shown escaped.
void RequireShownText(const Trace& t) {
  auto check = [](const std::string& text, const std::string& pointer) {
    if (!base::IsPrintable(text)) {
      throw jr::JsonError(pointer,
                          "expected text without control characters, got " + json(text).dump());
    }
  };
  auto check_all = [&](const std::vector<std::string>& texts, const std::string& pointer) {
    for (size_t i = 0; i < texts.size(); ++i) check(texts[i], pointer + "/" + std::to_string(i));
  };
  for (size_t i = 0; i < t.clients.size(); ++i) {
    check(t.clients[i].name, "/clients/" + std::to_string(i) + "/name");
    check(t.clients[i].algorithm, "/clients/" + std::to_string(i) + "/algorithm");
  }
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const world::StepRecord& r = t.steps[i];
    const std::string at = "/steps/" + std::to_string(i);
    check(r.actor, at + "/actor");
    check(r.server, at + "/server");
    check(r.source, at + "/source");
    check_all(r.events, at + "/events");
    check_all(r.in_critical_section, at + "/in_critical_section");
    check_all(r.holding, at + "/holding");
    for (size_t k = 0; k < r.servers.size(); ++k) {
      check(r.servers[k].name, at + "/servers/" + std::to_string(k) + "/name");
    }
    for (size_t k = 0; k < r.reasons.size(); ++k) {
      check(r.reasons[k].reason.text, at + "/reasons/" + std::to_string(k) + "/text");
      check(r.reasons[k].reason.source, at + "/reasons/" + std::to_string(k) + "/source");
    }
  }
  check(t.end, "/end");
  if (t.violation) {
    check(t.violation->property, "/violation/property");
    check_all(t.violation->clients, "/violation/clients");
    check(t.violation->message, "/violation/message");
  }
}

}  // namespace

Trace FromJson(const json& j, const std::string& file) {
  try {
    jr::ObjectReader o(j, "");
    std::string format = o.String("format");
    if (format != FormatName(1) && format != FormatName(kFormatVersion) &&
        format != FormatName(kLassoFormatVersion)) {
      throw jr::JsonError("/format", "expected \"" + FormatName(kLassoFormatVersion) + "\", \"" +
                                         FormatName(kFormatVersion) + "\" or \"" + FormatName(1) +
                                         "\", got \"" + format + "\"");
    }
    Trace t;
    t.format_version = format == FormatName(1)                     ? 1
                       : format == FormatName(kLassoFormatVersion) ? kLassoFormatVersion
                                                                   : kFormatVersion;
    if (t.format_version >= kLassoFormatVersion) {
      o.RejectUnknown({"format", "scenario", "seed", "clients", "schedule", "steps", "end",
                       "violation", "lasso"});
    } else {
      o.RejectUnknown(
          {"format", "scenario", "seed", "clients", "schedule", "steps", "end", "violation"});
    }
    jr::ObjectReader(o.Raw("scenario"), "/scenario");  // must be an object
    t.scenario = o.Raw("scenario");
    t.seed = ReadSeed(o.Raw("seed"), "/seed");
    const json& clients = o.Array("clients");
    if (clients.empty() || clients.size() > base::kMaxClients) {  // as a scenario allows
      throw jr::JsonError("/clients", "expected 1 to " + std::to_string(base::kMaxClients) +
                                          " clients, got " + std::to_string(clients.size()));
    }
    std::vector<std::string> names;
    for (size_t i = 0; i < clients.size(); ++i) {
      jr::ObjectReader c(clients[i], "/clients/" + std::to_string(i));
      ClientInfo info;
      info.name = c.String("name");
      if (std::find(names.begin(), names.end(), info.name) != names.end()) {
        throw jr::JsonError(c.PointerOf("name"), "duplicate client name " + json(info.name).dump());
      }
      info.algorithm = c.String("algorithm");
      info.skew = c.Int("skew", INT64_MIN / 4, INT64_MAX / 4);
      info.crashed_at_start = c.Bool("crashed_at_start", false);
      names.push_back(info.name);
      t.clients.push_back(info);
    }
    // Server names come from the embedded scenario (validated when replayed).
    const json& servers = t.scenario.contains("servers") ? t.scenario["servers"] : json();
    if (servers.is_array() && servers.size() > 1) {
      for (const json& sv : servers) {
        if (sv.is_object() && sv.contains("name") && sv["name"].is_string()) {
          t.server_names.push_back(sv["name"]);
        }
      }
    }
    t.schedule = StringList(o.Array("schedule"), "/schedule");
    const json& steps = o.Array("steps");
    for (size_t i = 0; i < steps.size(); ++i) {
      t.steps.push_back(StepFromJson(steps[i], "/steps/" + std::to_string(i), names, t.server_names,
                                     static_cast<int>(i), t.format_version));
    }
    t.end = o.String("end");
    if (!o.Raw("violation").is_null()) {
      jr::ObjectReader v = o.Object("violation");
      check::Violation viol;
      viol.property = v.String("property");
      viol.clients = StringList(v.Array("clients"), v.PointerOf("clients"));
      viol.step = static_cast<int>(v.Int("step", 0, INT32_MAX));
      viol.message = v.String("message");
      t.violation = viol;
    }
    if (t.format_version >= kLassoFormatVersion && !o.Raw("lasso").is_null()) {
      jr::ObjectReader l = o.Object("lasso");
      l.RejectUnknown({"start", "length"});
      Trace::Lasso lasso;
      lasso.start = static_cast<int>(l.Int("start", 0, static_cast<int64_t>(t.schedule.size())));
      lasso.length = static_cast<int>(
          l.Int("length", 1, static_cast<int64_t>(t.schedule.size()) - lasso.start));
      t.lasso = lasso;
    }
    RequireShownText(t);
    return t;
  } catch (const jr::JsonError& e) {
    throw base::InputError(file, e.place, e.expected);
  }
}

std::string EntriesText(const std::vector<kv::Entry>& entries,
                        const std::map<std::string, std::string>& writers) {
  std::string s;
  for (const kv::Entry& e : entries) {
    if (!s.empty()) s += "  ";
    s += base::Printable(e.key) + "=";
    if (e.kind != kv::Entry::Kind::kString) {
      s += base::Printable(kv::ItemsSummary(e));
    } else {
      s += "\"" + base::Printable(e.value) + "\"";
    }
    if (e.deadline) s += " until " + std::to_string(*e.deadline);
    auto w = writers.find(e.key);
    if (w != writers.end()) s += " by " + base::Printable(w->second);
  }
  return s.empty() ? "(empty)" : s;
}

}  // namespace lockstep::trace
