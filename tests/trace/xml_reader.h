// A strict reader for the XML that the renderers write, for the tests of
// the pictures: elements, attributes, text, comments, the XML declaration
// and the five predefined entities.
#pragma once

#include <cctype>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace lockstep::testing {

struct Element {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<std::string> ancestors;  // names, outermost first
  std::string text;                    // its character data, entities as written
  std::string Attr(const std::string& k) const {
    auto it = attrs.find(k);
    return it == attrs.end() ? "" : it->second;
  }
  std::string Class() const { return Attr("class"); }
};

// Returns false, with the reason, on anything malformed.
inline bool ParseXml(const std::string& text, std::vector<Element>* out, std::string* why) {
  std::vector<std::string> open;
  std::vector<size_t> open_index;  // where each open element is in *out
  size_t i = 0;
  auto fail = [&](const std::string& w) {
    *why = w + " at offset " + std::to_string(i);
    return false;
  };
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
           c == '.';
  };
  auto check_entities = [&](const std::string& s) {
    for (size_t at = s.find('&'); at != std::string::npos; at = s.find('&', at + 1)) {
      bool ok = false;
      for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"}) {
        if (s.compare(at, std::strlen(e), e) == 0) ok = true;
      }
      if (!ok) return false;
    }
    return s.find('<') == std::string::npos;
  };
  if (text.compare(0, 5, "<?xml") == 0) {
    i = text.find("?>");
    if (i == std::string::npos) return fail("unterminated declaration");
    i += 2;
  }
  bool root_closed = false;
  while (i < text.size()) {
    size_t lt = text.find('<', i);
    std::string chars = text.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    if (!check_entities(chars)) return fail("bad character data");
    if (open.empty() && chars.find_first_not_of(" \n\t\r") != std::string::npos) {
      return fail("text outside the root");
    }
    if (!open_index.empty()) (*out)[open_index.back()].text += chars;
    if (lt == std::string::npos) break;
    i = lt;
    if (text.compare(i, 4, "<!--") == 0) {
      size_t end = text.find("-->", i);
      if (end == std::string::npos) return fail("unterminated comment");
      i = end + 3;
      continue;
    }
    if (text.compare(i, 2, "</") == 0) {
      size_t j = i + 2;
      while (j < text.size() && name_char(text[j])) ++j;
      std::string name = text.substr(i + 2, j - i - 2);
      if (j >= text.size() || text[j] != '>') return fail("bad end tag");
      if (open.empty() || open.back() != name) return fail("mismatched </" + name + ">");
      open.pop_back();
      open_index.pop_back();
      i = j + 1;
      if (open.empty()) root_closed = true;
      continue;
    }
    if (root_closed) return fail("a second root element");
    size_t j = i + 1;
    while (j < text.size() && name_char(text[j])) ++j;
    Element e;
    e.name = text.substr(i + 1, j - i - 1);
    if (e.name.empty()) return fail("empty element name");
    e.ancestors = open;
    while (true) {
      while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
      if (j >= text.size()) return fail("unterminated tag");
      if (text[j] == '>' || text.compare(j, 2, "/>") == 0) break;
      size_t k = j;
      while (k < text.size() && name_char(text[k])) ++k;
      std::string attr = text.substr(j, k - j);
      if (attr.empty() || k + 1 >= text.size() || text[k] != '=' || text[k + 1] != '"') {
        return fail("bad attribute in <" + e.name + ">");
      }
      size_t close = text.find('"', k + 2);
      if (close == std::string::npos) return fail("unterminated attribute");
      std::string value = text.substr(k + 2, close - k - 2);
      if (!check_entities(value)) return fail("bad attribute value");
      if (!e.attrs.emplace(attr, value).second) return fail("repeated attribute " + attr);
      j = close + 1;
      if (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j])) && text[j] != '>' &&
          text[j] != '/') {
        return fail("no space between attributes");
      }
    }
    const bool empty = text[j] == '/';
    i = j + (empty ? 2 : 1);
    if (!empty) {
      open.push_back(e.name);
      open_index.push_back(out->size());
    }
    out->push_back(std::move(e));
  }
  if (!open.empty()) return fail("unclosed <" + open.back() + ">");
  if (out->empty()) return fail("no root element");
  return true;
}

// The elements of `xml`, which must be well-formed.
inline std::vector<Element> Parsed(const std::string& xml) {
  std::vector<Element> elements;
  std::string why;
  INFO(why);
  REQUIRE(ParseXml(xml, &elements, &why));
  return elements;
}

inline std::vector<const Element*> WithClass(const std::vector<Element>& all,
                                             const std::string& cls) {
  std::vector<const Element*> out;
  for (const Element& e : all) {
    if (e.Class() == cls) out.push_back(&e);
  }
  return out;
}
}  // namespace lockstep::testing
