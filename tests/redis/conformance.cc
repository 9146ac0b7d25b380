#include "tests/redis/conformance.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "sim/kv/command_table.h"
#include "sim/kv/dispatch.h"
#include "sim/kv/int_parse.h"
#include "tests/redis/known_departures.h"

namespace lockstep::conformance {
namespace {

using std::string_literals::operator""s;

bool Printable(const std::string& s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char ch) { return ch > ' ' && ch < 0x7f && ch != '"'; });
}

kv::Entry Normalized(kv::Entry e) {
  if (e.kind != kv::Entry::Kind::kString) {
    e.value = kv::Text();
  } else {
    e.items.clear();
  }
  return e;
}

std::vector<kv::Entry> Normalized(std::vector<kv::Entry> v) {
  for (auto& e : v) e = Normalized(std::move(e));
  return v;
}

std::string Describe(const std::vector<kv::Entry>& v) {
  if (v.empty()) return "(empty)";
  std::string s;
  for (const kv::Entry& e : v) {
    if (!s.empty()) s += "  ";
    s += kv::Reply::Bulk(e.key).ToString() + "=";
    if (e.kind != kv::Entry::Kind::kString) {
      std::vector<kv::Reply> items;
      for (const auto& x : e.items) items.push_back(kv::Reply::Bulk(x));
      s += std::string(kv::KindName(e.kind)) + " " + kv::Reply::Array(items).ToString();
    } else {
      s += kv::Reply::Bulk(e.value).ToString();
    }
    s += e.deadline ? " until " + kv::FormatInt64(*e.deadline) : "";
  }
  return s;
}

int64_t TimeMs(const kv::Reply& r) {
  int64_t s = 0, us = 0;
  if (r.type != kv::Reply::Type::kArray || r.elements.size() != 2 ||
      !kv::ParseInt64(r.elements[0].text, &s) || !kv::ParseInt64(r.elements[1].text, &us)) {
    throw std::runtime_error("TIME answered " + r.ToString());
  }
  return s * 1000 + us / 1000;
}

}  // namespace

Argv Materialize(const Command& c, int64_t now_ms) {
  Argv argv;
  for (const Arg& a : c.args) {
    switch (a.base) {
      case Arg::Base::kNone:
        argv.push_back(a.text);
        break;
      case Arg::Base::kNowMs:
        argv.push_back(kv::FormatInt64(now_ms + a.offset));
        break;
      case Arg::Base::kNowSeconds:
        argv.push_back(kv::FormatInt64(now_ms / 1000 + a.offset));
        break;
    }
  }
  return argv;
}

std::string Render(const Command& c) {
  if (c.args.empty()) return "(empty command)";
  std::string s = c.advance_ms > 0 ? "(+" + std::to_string(c.advance_ms) + " ms) " : "";
  for (const Arg& a : c.args) {
    if (!s.empty() && s.back() != ' ') s += ' ';
    const std::string sign = a.offset < 0 ? "-" : "+";
    const std::string magnitude = std::to_string(a.offset < 0 ? -a.offset : a.offset);
    switch (a.base) {
      case Arg::Base::kNone:
        s += Printable(a.text) ? a.text : kv::Reply::Bulk(a.text).ToString();
        break;
      case Arg::Base::kNowMs:
        s += "<now" + sign + magnitude + "ms>";
        break;
      case Arg::Base::kNowSeconds:
        s += "<now" + sign + magnitude + "s>";
        break;
    }
  }
  return s;
}

std::vector<kv::Reply> Runner::Send(const std::vector<Argv>& commands) {
  std::string error;
  auto replies = redis_.Pipeline(commands, &error);
  if (!replies) throw std::runtime_error("redis-server connection failed: " + error);
  return *std::move(replies);
}

std::vector<kv::Entry> Runner::RealKeyspace() {
  kv::Reply keys = Send({{"KEYS", "*"}}).front();
  std::vector<std::string> names;
  for (const auto& k : keys.elements) names.push_back(k.text);
  std::sort(names.begin(), names.end());
  std::vector<Argv> reads;
  for (const auto& k : names) {
    reads.push_back({"TYPE", k});
    reads.push_back({"GET", k});
    reads.push_back({"LRANGE", k, "0", "-1"});
    reads.push_back({"HGETALL", k});
    reads.push_back({"ZRANGE", k, "0", "-1", "WITHSCORES"});
    reads.push_back({"PEXPIRETIME", k});
  }
  constexpr size_t kReads = 6;
  std::vector<kv::Reply> r = reads.empty() ? std::vector<kv::Reply>() : Send(reads);
  std::vector<kv::Entry> out;
  for (size_t i = 0; i < names.size(); ++i) {
    kv::Entry e;
    e.key = kv::Text(names[i]);
    const kv::Reply* read = &r[kReads * i];
    const kv::Reply& type = read[0];
    const auto items_of = [&](kv::Entry::Kind kind, const kv::Reply& all) {
      e.kind = kind;
      for (const auto& x : all.elements) e.items.push_back(x.text);
    };
    if (type.text == "list") {
      items_of(kv::Entry::Kind::kList, read[2]);
    } else if (type.text == "hash") {
      items_of(kv::Entry::Kind::kHash, read[3]);
    } else if (type.text == "zset") {
      items_of(kv::Entry::Kind::kZset, read[4]);
    } else if (type.text == "string") {
      e.value = kv::Text(read[1].text);
    } else {
      e.value = kv::Text("(unexpected type " + type.ToString() + ")");
    }
    const kv::Reply& when = read[5];
    if (when.integer >= 0) e.deadline = when.integer;
    out.push_back(e);
  }
  return out;
}

namespace {

// A command under a known departure is sent to neither side: counted, and
// recorded as not run.
bool SkippedAsDeparture(const Argv& argv, Outcome& o) {
  const std::string_view departure = DepartureFor(argv);
  if (departure.empty()) return false;
  ++o.departures[std::string(departure)];
  o.model.emplace_back();
  o.real.emplace_back();
  return true;
}

}  // namespace

Outcome Runner::RunTimed(const Sequence& s) {
  Outcome o;
  kv::Keyspace model;
  int64_t now = 0;
  clock_->SetClock(now);
  const kv::Reply flushed = Send({{"FLUSHALL"}}).front();
  if (flushed != kv::Reply::Ok())
    throw std::runtime_error("FLUSHALL answered " + flushed.ToString());
  for (size_t i = 0; i < s.size(); ++i) {
    now += s[i].advance_ms;
    clock_->SetClock(now);
    const Argv argv = Materialize(s[i], now);
    if (SkippedAsDeparture(argv, o)) continue;
    const kv::Reply real = Send({argv}).front();
    kv::Reply mine = kv::Execute(model, argv, now);
    if (hook_) hook_(argv, &mine);
    o.model.push_back(mine);
    o.real.push_back(real);
    if (real.is_error()) o.real_errors.push_back(real);
    if (mine != real) {
      o.ok = false;
      o.at = i;
      o.what = "replies differ at command " + std::to_string(i + 1) + " (clock " +
               std::to_string(now) + " ms)";
      return o;
    }
    const std::vector<kv::Entry> want = Normalized(model.Live(now));
    const std::vector<kv::Entry> got = Normalized(RealKeyspace());
    if (want != got) {
      o.ok = false;
      o.at = i;
      o.what = "keyspaces differ after command " + std::to_string(i + 1) + " (clock " +
               std::to_string(now) + " ms):\n    model: " + Describe(want) +
               "\n    redis: " + Describe(got);
      return o;
    }
  }
  return o;
}

Outcome Runner::Run(const Sequence& s) {
  ++runs_;
  if (clock_ != nullptr) return RunTimed(s);
  Outcome o;
  kv::Keyspace model;
  std::vector<kv::Reply> start = Send({{"FLUSHALL"}, {"TIME"}});
  if (start[0] != kv::Reply::Ok()) {
    throw std::runtime_error("FLUSHALL answered " + start[0].ToString());
  }
  const int64_t now = TimeMs(start[1]);
  int64_t last = now;
  for (size_t i = 0; i < s.size(); ++i) {
    const Argv argv = Materialize(s[i], now);
    if (SkippedAsDeparture(argv, o)) continue;
    std::vector<kv::Reply> r = Send({{"TIME"}, argv, {"TIME"}});
    const kv::Reply& real = r[1];
    const int64_t t0 = TimeMs(r[0]);
    const int64_t t1 = std::max(t0, TimeMs(r[2]));
    last = t1;
    // The server ran the command at some instant in [t0, t1]; usually the
    // two are the same millisecond.
    struct Candidate {
      kv::Reply reply;
      kv::Keyspace after;
    };
    std::vector<Candidate> candidates;
    for (int64_t t = t0; t <= t1 && candidates.size() < 100; ++t) {
      Candidate c{kv::Reply(), model};
      c.reply = kv::Execute(c.after, argv, t);
      if (hook_) hook_(argv, &c.reply);
      candidates.push_back(std::move(c));
    }
    size_t chosen = 0;
    const bool same = std::all_of(candidates.begin(), candidates.end(), [&](const Candidate& c) {
      return c.reply == candidates[0].reply && c.after.Live(t1) == candidates[0].after.Live(t1);
    });
    if (!same) {
      // The instant whose reply and keyspace are the server's; failing
      // that, the first whose reply is (the keyspace check will tell).
      std::optional<std::vector<kv::Entry>> real_keys;
      std::optional<size_t> reply_match;
      for (size_t j = 0; j < candidates.size(); ++j) {
        if (candidates[j].reply != real) continue;
        if (!reply_match) reply_match = j;
        if (!real_keys) real_keys = Normalized(RealKeyspace());
        if (Normalized(candidates[j].after.Live(t1)) == *real_keys) {
          reply_match = j;
          break;
        }
      }
      chosen = reply_match.value_or(0);
    }
    model = std::move(candidates[chosen].after);
    o.model.push_back(candidates[chosen].reply);
    o.real.push_back(real);
    if (real.is_error()) o.real_errors.push_back(real);
    if (candidates[chosen].reply != real) {
      o.ok = false;
      o.at = i;
      o.what = "replies differ at command " + std::to_string(i + 1);
      return o;
    }
  }
  const std::vector<kv::Entry> want = Normalized(model.Live(last));
  const std::vector<kv::Entry> got = Normalized(RealKeyspace());
  if (want != got) {
    o.ok = false;
    o.at = s.size();
    o.what =
        "final keyspaces differ:\n    model: " + Describe(want) + "\n    redis: " + Describe(got);
  }
  return o;
}

Sequence Shrink(Runner& runner, Sequence s, int max_runs) {
  const int budget_end = runner.runs() + max_runs;
  auto fails = [&](const Sequence& c) { return !runner.Run(c).ok; };
  // ddmin over complements: drop one of n chunks at a time; n doubles when
  // no chunk can go, up to single commands.
  size_t n = 2;
  while (s.size() >= 2 && runner.runs() < budget_end) {
    const size_t chunk = (s.size() + n - 1) / n;
    bool reduced = false;
    for (size_t begin = 0; begin < s.size() && runner.runs() < budget_end; begin += chunk) {
      Sequence candidate;
      for (size_t i = 0; i < s.size(); ++i) {
        if (i < begin || i >= begin + chunk) candidate.push_back(s[i]);
      }
      if (!candidate.empty() && fails(candidate)) {
        s = std::move(candidate);
        n = std::max<size_t>(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (chunk == 1) break;  // no single command can go: 1-minimal
      n = std::min(s.size(), n * 2);
    }
  }
  return s;
}

std::string Explain(const Sequence& s, const Outcome& o) {
  std::vector<std::string> commands;
  size_t width = 0;
  for (const Command& c : s) {
    commands.push_back(Render(c));
    width = std::max(width, commands.back().size());
  }
  std::string out = std::to_string(s.size()) +
                    " commands (<now...> is the server's clock when the sequence started; "
                    "in a timed sequence, at the command, after the clock moved by (+N ms)):\n";
  for (size_t i = 0; i < s.size(); ++i) {
    std::string line = "  " + std::to_string(i + 1) + ". " + commands[i] +
                       std::string(width - commands[i].size(), ' ');
    if (i < o.model.size()) {
      const auto& m = o.model[i];
      const auto& r = o.real[i];
      line += "   model: " + (m ? m->ToString() : "(not sent)") +
              "   redis: " + (r ? r->ToString() : "(not sent)");
      if (!o.ok && o.at == i) line += "   <-- differs";
    } else {
      out += "  (" + std::to_string(s.size() - i) + " more commands not run)\n";
      break;
    }
    out += line + "\n";
  }
  if (!o.ok) out += o.what + "\n";
  return out;
}

}  // namespace lockstep::conformance
