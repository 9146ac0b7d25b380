// Lua 5.1's pattern matcher. It explores a pattern in the same order as 5.1
// does, which matters beyond the results: 5.1 finds a malformed part of a
// pattern only when a match attempt reaches it, so the same inputs must
// raise the same errors at the same points. It also nests its calls where
// 5.1 (and 5.2) do, so that its depth bound is 5.2's.
#include "sim/kv/lua_pattern.h"

#include <ctype.h>

#include <cassert>
#include <cstring>

extern "C" {
#include <lauxlib.h>
}

namespace lockstep::kv::lua_pattern {
namespace {

int Byte(char c) { return static_cast<unsigned char>(c); }

// Whether c is in the class of letter cl (%a, %D...). The <ctype.h>
// functions follow the C locale, as Lua's do; a letter that names no class
// stands for itself.
bool InClass(int c, int cl) {
  int in = 0;
  switch (tolower(cl)) {
    case 'a':
      in = isalpha(c);
      break;
    case 'c':
      in = iscntrl(c);
      break;
    case 'd':
      in = isdigit(c);
      break;
    case 'l':
      in = islower(c);
      break;
    case 'p':
      in = ispunct(c);
      break;
    case 's':
      in = isspace(c);
      break;
    case 'u':
      in = isupper(c);
      break;
    case 'w':
      in = isalnum(c);
      break;
    case 'x':
      in = isxdigit(c);
      break;
    case 'z':
      in = c == 0;
      break;
    default:
      return cl == c;
  }
  // An upper-case letter is the complement.
  return islower(cl) ? in != 0 : in == 0;
}

// Where the single-character class at p ends: past "%x", past a set's ']',
// or past one byte. Scanning a set costs a step a byte.
const char* ClassEnd(MatchState* ms, const char* p) {
  const char first = *p++;
  if (first == '%') {
    if (*p == '\0') RaiseError(ms, "malformed pattern (ends with '%')");
    return p + 1;
  }
  if (first != '[') return p;
  if (*p == '^') p++;
  // The set's first byte never closes it: "[]]" is the set of ']'.
  do {
    Spend(ms, 1);
    if (*p == '\0') RaiseError(ms, "malformed pattern (missing ']')");
    if (*p++ == '%' && *p != '\0') p++;
  } while (*p != ']');
  return p + 1;
}

// Whether c is in the set that opens at p ('[') and closes at last (']').
bool InSet(MatchState* ms, int c, const char* p, const char* last) {
  bool found = true;
  p++;
  if (*p == '^') {
    found = false;
    p++;
  }
  for (; p < last; p++) {
    Spend(ms, 1);
    if (*p == '%') {
      p++;
      if (InClass(c, Byte(*p))) return found;
    } else if (p[1] == '-' && p + 2 < last) {
      if (Byte(p[0]) <= c && c <= Byte(p[2])) return found;
      p += 2;
    } else if (Byte(*p) == c) {
      return found;
    }
  }
  return !found;
}

// Whether c matches the single-character class [p, ep).
bool SingleMatch(MatchState* ms, int c, const char* p, const char* ep) {
  Spend(ms, 1);
  switch (*p) {
    case '.':
      return true;
    case '%':
      return InClass(c, Byte(p[1]));
    case '[':
      return InSet(ms, c, p, ep - 1);
    default:
      return Byte(*p) == c;
  }
}

// %bxy at s, with p at x: where the balanced run ends, or nullptr.
const char* MatchBalance(MatchState* ms, const char* s, const char* p) {
  if (p[0] == '\0' || p[1] == '\0') RaiseError(ms, "unbalanced pattern");
  if (s >= ms->src_end || *s != p[0]) return nullptr;
  // The closing byte is tested first: with x == y, "%bxx" ends at the next x.
  int64_t open = 1;
  while (++s < ms->src_end) {
    Spend(ms, 1);
    if (*s == p[1]) {
      if (--open == 0) return s + 1;
    } else if (*s == p[0]) {
      open++;
    }
  }
  return nullptr;
}

// %1..%9 at s: where the repeated capture ends, or nullptr. ("%0" is an
// invalid index here.)
const char* MatchBackReference(MatchState* ms, const char* s, int digit) {
  const int i = digit - '1';
  if (i < 0 || i >= ms->level || ms->capture[i].len == kCaptureOpen) {
    RaiseError(ms, "invalid capture index");
  }
  // A position capture never matches: 5.1 reads its length as huge.
  const ptrdiff_t len = ms->capture[i].len;
  if (len < 0 || ms->src_end - s < len) return nullptr;
  const size_t n = static_cast<size_t>(len);
  if (CommonPrefix(ms, ms->capture[i].init, s, n) != n) return nullptr;
  return s + len;
}

// Match's helpers that call it back are inlined into it, so that a level of
// depth costs one frame (64 bytes at -O2).

// Item [p, ep) repeated as often as it matches, then fewer times.
[[gnu::always_inline]] inline const char* MaxExpand(MatchState* ms, const char* s, const char* p,
                                                    const char* ep) {
  ptrdiff_t n = 0;
  while (s + n < ms->src_end && SingleMatch(ms, Byte(s[n]), p, ep)) n++;
  for (; n >= 0; n--) {
    if (const char* end = Match(ms, s + n, ep + 1)) return end;
  }
  return nullptr;
}

// Item [p, ep) repeated as few times as the rest allows.
[[gnu::always_inline]] inline const char* MinExpand(MatchState* ms, const char* s, const char* p,
                                                    const char* ep) {
  for (;;) {
    if (const char* end = Match(ms, s, ep + 1)) return end;
    if (s >= ms->src_end || !SingleMatch(ms, Byte(*s), p, ep)) return nullptr;
    s++;
  }
}

[[gnu::always_inline]] inline const char* StartCapture(MatchState* ms, const char* s, const char* p,
                                                       ptrdiff_t len) {
  if (ms->level >= kMaxCaptures) RaiseError(ms, "too many captures");
  assert(ms->level < ms->capture_room);
  ms->capture[ms->level] = {s, len};
  ms->level++;
  const char* end = Match(ms, s, p);
  if (end == nullptr) ms->level--;
  return end;
}

[[gnu::always_inline]] inline const char* EndCapture(MatchState* ms, const char* s, const char* p) {
  int i = ms->level - 1;
  while (i >= 0 && ms->capture[i].len != kCaptureOpen) i--;
  if (i < 0) RaiseError(ms, "invalid pattern capture");
  ms->capture[i].len = s - ms->capture[i].init;
  const char* end = Match(ms, s, p);
  if (end == nullptr) ms->capture[i].len = kCaptureOpen;
  return end;
}

// Match's body. Items that cannot backtrack loop here; the others nest a
// Match call per alternative, as 5.1 does.
[[gnu::always_inline]] inline const char* MatchItems(MatchState* ms, const char* s, const char* p) {
  for (;;) {
    Spend(ms, 1);
    switch (*p) {
      case '\0':
        return s;
      case '(':
        if (p[1] == ')') return StartCapture(ms, s, p + 2, kCapturePosition);
        return StartCapture(ms, s, p + 1, kCaptureOpen);
      case ')':
        return EndCapture(ms, s, p + 1);
      case '$':
        if (p[1] == '\0') return s == ms->src_end ? s : nullptr;
        break;  // elsewhere a '$' is itself
      case '%':
        if (p[1] == 'b') {
          s = MatchBalance(ms, s, p + 2);
          if (s == nullptr) return nullptr;
          p += 4;
          continue;
        }
        if (p[1] == 'f') {
          p += 2;
          if (*p != '[') RaiseError(ms, "missing '[' after '%f' in pattern");
          const char* ep = ClassEnd(ms, p);
          const int before = s == ms->src_init ? 0 : Byte(s[-1]);
          const int at = s < ms->src_end ? Byte(*s) : 0;
          if (InSet(ms, before, p, ep - 1) || !InSet(ms, at, p, ep - 1)) return nullptr;
          p = ep;
          continue;
        }
        if (isdigit(Byte(p[1]))) {
          s = MatchBackReference(ms, s, Byte(p[1]));
          if (s == nullptr) return nullptr;
          p += 2;
          continue;
        }
        break;
      default:
        break;
    }
    // A single-character class, maybe with a repetition suffix.
    const char* ep = ClassEnd(ms, p);
    const bool one = s < ms->src_end && SingleMatch(ms, Byte(*s), p, ep);
    switch (*ep) {
      case '?':
        if (one) {
          if (const char* end = Match(ms, s + 1, ep + 1)) return end;
        }
        p = ep + 1;
        continue;
      case '*':
        return MaxExpand(ms, s, p, ep);
      case '+':
        return one ? MaxExpand(ms, s + 1, p, ep) : nullptr;
      case '-':
        return MinExpand(ms, s, p, ep);
      default:
        if (!one) return nullptr;
        s++;
        p = ep;
        continue;
    }
  }
}

}  // namespace

void InitMatch(MatchState* ms, lua_State* L, LuaWorkCharge charge, const char* s, size_t len) {
  ms->L = L;
  ms->charge = charge;
  ms->src_init = s;
  ms->src_end = s + len;
  ms->unpaid = 0;
  ms->level = 0;
  ms->depth_left = kMaxMatchDepth;
  ms->capture_room = kInlineCaptures;
  ms->capture = ms->inline_capture;
}

void MakeRoomForCaptures(MatchState* ms, const char* p) {
  const size_t len = std::strlen(p);
  SpendOnBytes(ms, len);
  int opens = 0;
  for (size_t i = 0; i < len; i++) opens += p[i] == '(' ? 1 : 0;
  if (opens > kInlineCaptures) {
    ms->capture = static_cast<Capture*>(lua_newuserdata(ms->L, sizeof(Capture) * kMaxCaptures));
    ms->capture_room = kMaxCaptures;
  }
}

void PayWork(MatchState* ms) {
  const int64_t work = ms->unpaid;
  if (work == 0) return;
  ms->unpaid = 0;
  ms->charge(ms->L, work);
}

void RaiseError(MatchState* ms, const char* msg) {
  PayWork(ms);
  luaL_error(ms->L, "%s", msg);
  __builtin_unreachable();  // luaL_error longjmps
}

const char* Match(MatchState* ms, const char* s, const char* p) {
  if (ms->depth_left == 0) {
    PayWork(ms);
    ms->charge(ms->L, kMatchTooComplex);
    RaiseError(ms, "pattern too complex");
  }
  ms->depth_left--;
  const char* end = MatchItems(ms, s, p);
  ms->depth_left++;
  return end;
}

size_t CommonPrefix(MatchState* ms, const char* a, const char* b, size_t n) {
  size_t i = 0;
  while (i < n) {
    const size_t chunk_end = n - i > static_cast<size_t>(kChargeEvery) ? i + kChargeEvery : n;
    size_t j = i;
    while (j < chunk_end && a[j] == b[j]) j++;
    // The byte that differs was compared too.
    Spend(ms, static_cast<int64_t>(j - i + (j < chunk_end ? 1 : 0)));
    if (j < chunk_end) return j;
    i = chunk_end;
  }
  return n;
}

void PushCapture(MatchState* ms, int i, const char* s, const char* e) {
  if (i >= ms->level) {
    if (i != 0) RaiseError(ms, "invalid capture index");
    SpendOnBytes(ms, static_cast<size_t>(e - s));
    lua_pushlstring(ms->L, s, static_cast<size_t>(e - s));
    return;
  }
  const Capture& c = ms->capture[i];
  if (c.len == kCaptureOpen) RaiseError(ms, "unfinished capture");
  if (c.len == kCapturePosition) {
    lua_pushinteger(ms->L, c.init - ms->src_init + 1);
    return;
  }
  SpendOnBytes(ms, static_cast<size_t>(c.len));
  lua_pushlstring(ms->L, c.init, static_cast<size_t>(c.len));
}

int PushCaptures(MatchState* ms, const char* s, const char* e) {
  const int n = ms->level == 0 && s != nullptr ? 1 : ms->level;
  luaL_checkstack(ms->L, n, "too many captures");
  for (int i = 0; i < n; i++) PushCapture(ms, i, s, e);
  return n;
}

}  // namespace lockstep::kv::lua_pattern
