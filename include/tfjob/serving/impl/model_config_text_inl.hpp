#pragma once
/// \file The bodies of <tfjob/serving/model_config_text.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/model_config_text.hpp>, never this file.

namespace tfjob::serving {

namespace detail {

/// A small reader of protobuf's text format for ModelServerConfig: fields `name: value`,
/// messages `name { ... }` or `name: { ... }`, strings in '' or "", integers, # comments.
/// Bounded: depth 16, no recursion on input size.
class TextFormatReader {
 public:
  explicit TextFormatReader(const std::string& text) : s_(text) {}

  struct Token {
    enum class Kind { end, ident, string, number, open, close, colon } kind = Kind::end;
    std::string text;
  };

  Token next() {
    skip();
    Token t;
    if (i_ >= s_.size()) return t;
    const char c = s_[i_];
    if (c == '{' || c == '<') {
      ++i_;
      t.kind = Token::Kind::open;
      return t;
    }
    if (c == '}' || c == '>') {
      ++i_;
      t.kind = Token::Kind::close;
      return t;
    }
    if (c == ':') {
      ++i_;
      t.kind = Token::Kind::colon;
      return t;
    }
    if (c == '"' || c == '\'') {
      ++i_;
      t.kind = Token::Kind::string;
      while (i_ < s_.size() && s_[i_] != c) {
        if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
          ++i_;
          t.text += s_[i_] == 'n' ? '\n' : s_[i_];
        } else {
          if (s_[i_] == '\n') fail("a string runs past the end of its line");
          t.text += s_[i_];
        }
        ++i_;
      }
      if (i_ >= s_.size()) fail("a string is not closed");
      ++i_;
      return t;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+') {
      t.kind = Token::Kind::number;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' || s_[i_] == '+' || s_[i_] == '.'))
        t.text += s_[i_++];
      return t;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      t.kind = Token::Kind::ident;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.'))
        t.text += s_[i_++];
      return t;
    }
    fail(std::string("unexpected character '") + c + "'");
  }

  [[noreturn]] void fail(const std::string& what) const {
    std::size_t line = 1;
    for (std::size_t k = 0; k < i_ && k < s_.size(); ++k) line += s_[k] == '\n';
    throw tfjob::error("model config line " + std::to_string(line) + ": " + what);
  }

 private:
  void skip() {
    while (i_ < s_.size()) {
      if (std::isspace(static_cast<unsigned char>(s_[i_])) || s_[i_] == ',' || s_[i_] == ';') {
        ++i_;
      } else if (s_[i_] == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

/// One parse_model_config() run: the reader, the text format's fields and messages, and one
/// step per message of ModelServerConfig (the file, a config, its version policy, a label).
class ModelConfigParser {
 public:
  using Tok = TextFormatReader::Token::Kind;

  explicit ModelConfigParser(const std::string& text) : r(text) {}

  /// The whole file: the configs of each model_config_list, in order; other top-level fields skipped.
  ModelServerConfig parse() {
    ModelServerConfig out;
    for (auto t = r.next(); t.kind != Tok::end; t = r.next()) {
      Field top = field(t);
      if (top.name != "model_config_list") {
        if (top.value.kind == Tok::open) skip_message(1);
        if (top.name == "custom_model_config") r.fail("custom_model_config is not supported: use model_config_list");
        continue;
      }
      expect_message(top);
      each([&](const Field& cf) { read_config(cf, out); });
    }
    return out;
  }

 private:
  // One field: NAME then either ':' VALUE, ':' '{' ... or '{' ...
  struct Field {
    std::string name;
    TextFormatReader::Token value;  // kind open for a message
  };

  /// The field starting with NAME_TOK, its value read (a message's value is its '{').
  Field field(TextFormatReader::Token name_tok) {
    if (name_tok.kind != Tok::ident) r.fail("expected a field name");
    Field f{name_tok.text, {}};
    auto t = r.next();
    if (t.kind == Tok::colon) t = r.next();
    if (t.kind != Tok::open && t.kind != Tok::string && t.kind != Tok::number && t.kind != Tok::ident)
      r.fail("field \"" + f.name + "\" has no value");
    f.value = t;
    return f;
  }
  /// Skips a message's body after its '{' (nested, bounded depth).
  void skip_message(int depth) {
    int open = 1;
    while (open > 0) {
      auto t = r.next();
      if (t.kind == Tok::end) r.fail("a message is not closed with '}'");
      if (t.kind == Tok::open && ++open + depth > 16) r.fail("messages nested deeper than 16");
      if (t.kind == Tok::close) --open;
    }
  }
  /// A field's value as a non-negative integer.
  std::int64_t number(const Field& f) {
    if (f.value.kind != Tok::number) r.fail("field \"" + f.name + "\" takes a number");
    auto n = parse_version_number(f.value.text);
    if (!n) r.fail("field \"" + f.name + "\": \"" + f.value.text + "\" is not a non-negative integer");
    return *n;
  }
  /// A field's value as a quoted string.
  std::string string_value(const Field& f) {
    if (f.value.kind != Tok::string) r.fail("field \"" + f.name + "\" takes a quoted string");
    return f.value.text;
  }
  /// Fails unless the field's value is a message.
  void expect_message(const Field& f) {
    if (f.value.kind != Tok::open) r.fail("field \"" + f.name + "\" is a message: write " + f.name + " { ... }");
  }
  /// Reads the fields of a message until its '}' and hands each to `on` (which must consume
  /// a message value fully).
  template <class On>
  void each(On&& on) {
    for (;;) {
      auto t = r.next();
      if (t.kind == Tok::close) return;
      if (t.kind == Tok::end) r.fail("a message is not closed with '}'");
      on(field(t));
    }
  }

  /// One field of a model_config_list: a `config` read into OUT (named, with a base_path,
  /// not twice), anything else skipped.
  void read_config(const Field& cf, ModelServerConfig& out) {
    if (cf.name != "config") {
      if (cf.value.kind == Tok::open) skip_message(2);
      return;
    }
    expect_message(cf);
    ModelEntry m;
    bool have_policy = false;
    each([&](const Field& f) { read_config_field(f, m, have_policy); });
    if (m.name.empty()) r.fail("a config has no name");
    if (m.base_path.empty()) r.fail("config \"" + m.name + "\" has no base_path");
    if (out.find(m.name)) r.fail("model \"" + m.name + "\" is configured twice");
    if (out.models.size() >= 1024) r.fail("more than 1024 models");
    out.models.push_back(std::move(m));
  }
  /// One field of a config (ModelConfig) into M; unknown fields skipped.
  void read_config_field(const Field& f, ModelEntry& m, bool& have_policy) {
    if (f.name == "name") {
      m.name = string_value(f);
    } else if (f.name == "base_path") {
      m.base_path = string_value(f);
    } else if (f.name == "model_platform") {
      if (string_value(f) != "tensorflow")
        r.fail("model_platform \"" + f.value.text + "\": TF Serving's platform here is \"tensorflow\"");
    } else if (f.name == "model_version_policy") {
      read_version_policy(f, m, have_policy);
    } else if (f.name == "version_labels") {
      read_version_label(f, m);
    } else if (f.value.kind == Tok::open) {
      skip_message(3);
    }
  }
  /// A config's model_version_policy (once, with one of latest, all, specific) into M.
  void read_version_policy(const Field& f, ModelEntry& m, bool& have_policy) {
    expect_message(f);
    if (have_policy) r.fail("model_version_policy given twice");
    have_policy = true;
    int kinds = 0;
    each([&](const Field& pf) {
      expect_message(pf);
      ++kinds;
      read_policy_kind(pf, m.policy);
    });
    if (kinds > 1) r.fail("model_version_policy has more than one of latest, all, specific");
  }
  /// One of model_version_policy's latest { num_versions }, all {} or specific { versions } into P.
  void read_policy_kind(const Field& pf, VersionPolicy& p) {
    if (pf.name == "all") {
      p.kind = VersionPolicy::Kind::all;
      each([&](const Field& x) {
        if (x.value.kind == Tok::open) skip_message(5);
      });
    } else if (pf.name == "latest") {
      p.kind = VersionPolicy::Kind::latest;
      each([&](const Field& x) {
        if (x.name == "num_versions") p.num_versions = number(x);
        else if (x.value.kind == Tok::open) skip_message(5);
      });
    } else if (pf.name == "specific") {
      p.kind = VersionPolicy::Kind::specific;
      each([&](const Field& x) {
        if (x.name == "versions") {
          if (p.versions.size() >= 4096) r.fail("more than 4096 specific versions");
          p.versions.push_back(number(x));
        } else if (x.value.kind == Tok::open) {
          skip_message(5);
        }
      });
    } else {
      r.fail("model_version_policy \"" + pf.name + "\": use latest, all or specific");
    }
  }
  /// One version_labels { key value } of a config into M's labels.
  void read_version_label(const Field& f, ModelEntry& m) {
    expect_message(f);
    std::string key;
    std::optional<std::int64_t> value;
    each([&](const Field& x) {
      if (x.name == "key") key = string_value(x);
      else if (x.name == "value") value = number(x);
      else if (x.value.kind == Tok::open) skip_message(4);
    });
    if (key.empty() || !value) r.fail("version_labels needs a key and a value");
    if (m.labels.size() >= 1024) r.fail("more than 1024 version labels");
    m.labels[key] = *value;
  }

  TextFormatReader r;
};

}  // namespace detail

TFJOB_INLINE ModelServerConfig parse_model_config(const std::string& text) {
  if (text.size() > (1u << 20)) throw tfjob::error("model config: larger than 1 MiB");
  return detail::ModelConfigParser(text).parse();
}

}  // namespace tfjob::serving
