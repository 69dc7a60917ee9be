#pragma once
/// \file The bodies of <tfjob/kube/response.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/response.hpp>, never this file.

namespace tfjob::kube {

TFJOB_INLINE std::string Response::header(const std::string& name) const {
  auto l = detail::lower(name);
  for (const auto& [k, v] : headers)
    if (k == l) return v;
  return {};
}

TFJOB_INLINE status status_from_response(int code, const std::string& reason_phrase, const std::string& body,
                                         const std::string& retry_after) {
  status st;
  st.code = code;
  st.status = "Failure";
  auto r = tfjob::detail::read_json(body);
  const auto& j = r.value;
  // A Status of the wrong shape (a number where a string belongs) is read as far as it
  // goes: the fields that are strings are kept, the rest ignored.
  auto str = [](const nlohmann::json& o, const char* k, const char* def = "") {
    auto it = o.find(k);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string(def);
  };
  if (r.ok() && j.is_object() && str(j, "kind") == "Status") {
    st.status = str(j, "status", "Failure");
    st.message = str(j, "message");
    st.reason = str(j, "reason");
    if (auto c = j.find("code"); c != j.end() && c->is_number_integer() && *c >= 100 && *c <= 999) st.code = c->get<int>();
    if (auto d = j.find("details"); d != j.end() && d->is_object()) {
      st.details_name = str(*d, "name");
      st.details_group = str(*d, "group");
      st.details_kind = str(*d, "kind");
      if (auto ra = d->find("retryAfterSeconds"); ra != d->end() && ra->is_number_integer() && *ra >= 0 && *ra <= 86400)
        st.retry_after_seconds = ra->get<int>();
      if (auto cs = d->find("causes"); cs != d->end() && cs->is_array())
        for (const auto& c : *cs)
          if (c.is_object()) st.causes.push_back({str(c, "reason"), str(c, "message"), str(c, "field")});
    }
  }
  if (st.reason.empty()) {
    switch (code) {
      case 400: st.reason = "BadRequest"; break;
      case 401: st.reason = "Unauthorized"; break;
      case 403: st.reason = "Forbidden"; break;
      case 404: st.reason = "NotFound"; break;
      case 405: st.reason = "MethodNotAllowed"; break;
      case 409: st.reason = "Conflict"; break;
      case 410: st.reason = "Gone"; break;
      case 415: st.reason = "UnsupportedMediaType"; break;
      case 422: st.reason = "Invalid"; break;
      case 429: st.reason = "TooManyRequests"; break;
      case 500: st.reason = "InternalError"; break;
      case 503: st.reason = "ServiceUnavailable"; break;
      case 504: st.reason = "Timeout"; break;
      default: break;
    }
  }
  if (st.message.empty()) {
    std::string b = detail::trim(body);
    if (b.size() > 300) b = b.substr(0, 300) + "...";
    st.message = "the server answered " + std::to_string(code) + (reason_phrase.empty() ? "" : " " + reason_phrase) +
                 (b.empty() ? "" : ": " + b);
  }
  if (st.retry_after_seconds == 0 && !retry_after.empty()) st.retry_after_seconds = std::atoi(retry_after.c_str());
  return st;
}

TFJOB_INLINE std::vector<WarningHeader> parse_warning_headers(const std::vector<std::string>& values) {
  std::vector<WarningHeader> out;
  for (const auto& v : values) {
    std::size_t i = 0;
    auto spaces = [&] {
      while (i < v.size() && (v[i] == ' ' || v[i] == '\t')) ++i;
    };
    while (true) {
      spaces();
      if (i + 3 > v.size()) break;
      WarningHeader w;
      if (!std::isdigit(static_cast<unsigned char>(v[i])) || !std::isdigit(static_cast<unsigned char>(v[i + 1])) ||
          !std::isdigit(static_cast<unsigned char>(v[i + 2])))
        break;
      w.code = std::stoi(v.substr(i, 3));
      i += 3;
      if (i >= v.size() || v[i] != ' ') break;
      ++i;
      std::size_t a = i;
      while (i < v.size() && v[i] != ' ') ++i;
      w.agent = v.substr(a, i - a);
      if (w.agent.empty() || i >= v.size()) break;
      ++i;
      if (i >= v.size() || v[i] != '"') break;
      ++i;
      bool closed = false;
      while (i < v.size()) {
        char c = v[i++];
        if (c == '\\' && i < v.size()) w.text += v[i++];
        else if (c == '"') {
          closed = true;
          break;
        } else w.text += c;
      }
      if (!closed) break;
      // an optional quoted date, then a comma before the next warning
      spaces();
      if (i < v.size() && v[i] == '"') {
        auto e = v.find('"', i + 1);
        if (e == std::string::npos) break;
        i = e + 1;
        spaces();
      }
      out.push_back(std::move(w));
      if (i < v.size() && v[i] == ',') {
        ++i;
        continue;
      }
      break;
    }
  }
  return out;
}

}  // namespace tfjob::kube
