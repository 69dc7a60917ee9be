#pragma once
/// \file The bodies of <tfjob/setting.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_CORE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/setting.hpp>, never this file.

namespace tfjob {

TFJOB_INLINE const char* to_string(setting s) {
  switch (s) {
#define TFJOB_SETTING_NAME(key, name) \
  case setting::key: return name;
    TFJOB_SETTINGS(TFJOB_SETTING_NAME)
#undef TFJOB_SETTING_NAME
  }
  return "";
}

TFJOB_INLINE const std::vector<setting>& all_settings() {
  static const std::vector<setting> all = {
#define TFJOB_SETTING_LIST(key, name) setting::key,
      TFJOB_SETTINGS(TFJOB_SETTING_LIST)
#undef TFJOB_SETTING_LIST
  };
  return all;
}

TFJOB_INLINE Text::Text(std::string s) {
  if (!s.empty()) parts_.push_back({std::move(s), std::nullopt});
}

TFJOB_INLINE Text::Text(const char* s) : Text(std::string(s ? s : "")) {}

TFJOB_INLINE Text::Text(setting s) { parts_.push_back({std::string(), s}); }

TFJOB_INLINE Text& Text::operator+=(const Text& t) {
  for (const auto& p : t.parts_) {
    if (!p.key && !parts_.empty() && !parts_.back().key)
      parts_.back().text += p.text;  // plain text next to plain text is one piece
    else
      parts_.push_back(p);
  }
  return *this;
}

TFJOB_INLINE std::string Text::str() const {
  return str([](setting s) { return std::string(to_string(s)); });
}

TFJOB_INLINE std::string Text::str(const std::function<std::string(setting)>& word) const {
  std::string out;
  for (const auto& p : parts_) out += p.key ? word(*p.key) : p.text;
  return out;
}

TFJOB_INLINE std::vector<setting> Text::settings() const {
  std::vector<setting> out;
  for (const auto& p : parts_)
    if (p.key) out.push_back(*p.key);
  return out;
}

TFJOB_INLINE bool Text::empty() const { return parts_.empty(); }

TFJOB_INLINE bool Text::operator==(const Text& o) const { return str() == o.str(); }

TFJOB_INLINE Text operator+(Text a, const Text& b) {
  a += b;
  return a;
}

TFJOB_INLINE Text operator+(Text a, setting b) { return std::move(a) + Text(b); }

TFJOB_INLINE Text operator+(setting a, const Text& b) { return Text(a) + b; }

TFJOB_INLINE std::ostream& operator<<(std::ostream& os, const Text& t) { return os << t.str(); }

}  // namespace tfjob
