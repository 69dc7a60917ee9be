#pragma once
/// \file The bodies of <tfjob/api/tf_config.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/tf_config.hpp>, never this file.

namespace tfjob::detail {

TFJOB_INLINE void go_json_string(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  out += '"';
  std::size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      if (b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&') {
        out += static_cast<char>(b);
      } else if (b == '"' || b == '\\') {
        out += '\\';
        out += static_cast<char>(b);
      } else if (b == '\n') {
        out += "\\n";
      } else if (b == '\r') {
        out += "\\r";
      } else if (b == '\t') {
        out += "\\t";
      } else {
        out += "\\u00";
        out += hex[b >> 4];
        out += hex[b & 0xF];
      }
      ++i;
      continue;
    }
    // decode one UTF-8 sequence
    int len = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
    std::uint32_t cp = len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    bool ok = len != 0 && i + len <= s.size();
    for (int k = 1; ok && k < len; ++k) {
      auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) ok = false;
      else cp = (cp << 6) | (c & 0x3F);
    }
    if (ok) {
      static const std::uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
      if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) ok = false;
    }
    if (!ok) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (cp == 0x2028 || cp == 0x2029) {
      out += cp == 0x2028 ? "\\u2028" : "\\u2029";
    } else {
      out.append(s.substr(i, static_cast<std::size_t>(len)));
    }
    i += static_cast<std::size_t>(len);
  }
  out += '"';
}

TFJOB_INLINE void go_json_string_list(std::string& out, const std::vector<std::string>& v) {
  out += '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    go_json_string(out, v[i]);
  }
  out += ']';
}

}  // namespace tfjob::detail
namespace tfjob {

TFJOB_INLINE int tf_port(const TFJob& job, std::string_view rtype) {
  const auto* r = job.replica(rtype);
  if (!r) return default_port;
  const auto* cs = containers(*r);
  if (!cs) return default_port;
  for (const auto& c : *cs) {
    if (!c.is_object() || tfjob::detail::value_at(c, "name", std::string()) != default_container_name) continue;
    auto ports = c.find("ports");
    if (ports == c.end() || !ports->is_array()) continue;
    for (const auto& p : *ports)
      if (p.is_object() && tfjob::detail::value_at(p, "name", std::string()) == default_port_name) {
        auto cp = p.find("containerPort");
        if (cp != p.end() && cp->is_number_integer()) return cp->get<int>();
      }
  }
  return default_port;
}

TFJOB_INLINE bool is_distributed(const TFJob& job) {
  int n = 0;
  for (const auto& t : replica_type::all())
    if (const auto* r = job.replica(t)) n += r->replicas_or_default();
  return n != 1;
}

TFJOB_INLINE ClusterSpec gen_cluster_spec(const TFJob& job, const TFConfigOptions& opts) {
  ClusterSpec cluster;
  for (const auto& [type, spec] : job.spec.tf_replica_specs) {
    const std::string rt = to_lower(type);
    const int port = tf_port(job, type);
    auto& hosts = cluster[rt];
    for (int i = 0; i < spec.replicas_or_default(); ++i) {
      if (opts.address) {
        hosts.push_back(opts.address(rt, i));
        continue;
      }
      std::string host = replica_name(job.metadata.name, rt, i) + "." + job.metadata.namespace_ + ".svc";
      if (!opts.cluster_domain.empty()) host += "." + opts.cluster_domain;
      hosts.push_back(host + ":" + std::to_string(port));
    }
  }
  return cluster;
}

TFJOB_INLINE std::optional<std::string> gen_tf_config(const TFJob& job, const std::string& rtype,
                                                      int index, const TFConfigOptions& opts) {
  const std::string rt = to_lower(rtype);
  const ReplicaSpec* spec = nullptr;
  for (const auto& [t, s] : job.spec.tf_replica_specs)
    if (to_lower(t) == rt) spec = &s;
  if (!spec)
    throw error("TFJob " + job.metadata.name + " has no replica type " + rtype);
  if (index < 0 || index >= spec->replicas_or_default())
    throw error("TFJob " + job.metadata.name + ": replica " + rt + "-" + std::to_string(index) +
                " does not exist (" + std::to_string(spec->replicas_or_default()) + " replicas)");
  if (!is_distributed(job)) return std::nullopt;

  const ClusterSpec cluster = gen_cluster_spec(job, opts);
  std::string out;
  if (job.spec.enable_dynamic_worker) {
    // convertClusterSpecToSparseClusterSpec; Go marshals struct fields in order
    // (worker, ps) and a nil slice as null.
    std::map<int, std::string> workers;
    const std::vector<std::string>* ps = nullptr;
    std::vector<std::string> own_ps;
    static const std::vector<std::string> empty;
    ps = &empty;
    if (rt == "ps") {
      own_ps.push_back(cluster.at(rt).at(static_cast<std::size_t>(index)));
      ps = &own_ps;
    } else if (rt == "worker") {
      auto it = cluster.find("ps");
      ps = it == cluster.end() ? nullptr : &it->second;
      workers[index] = cluster.at(rt).at(static_cast<std::size_t>(index));
    }
    out += "{\"cluster\":{\"worker\":{";
    bool first = true;
    // Go sorts map keys as strings: "10" < "2".
    std::map<std::string, std::string> by_key;
    for (const auto& [k, v] : workers) by_key[std::to_string(k)] = v;
    for (const auto& [k, v] : by_key) {
      if (!first) out += ',';
      first = false;
      detail::go_json_string(out, k);
      out += ':';
      detail::go_json_string(out, v);
    }
    out += "},\"ps\":";
    if (ps) detail::go_json_string_list(out, *ps);
    else out += "null";
    out += "},\"task\":{\"type\":";
    detail::go_json_string(out, rt);
    out += ",\"index\":" + std::to_string(index) + "}}";
    return out;
  }
  out += "{\"cluster\":{";
  bool first = true;
  for (const auto& [k, v] : cluster) {  // std::map: sorted like Go's map keys
    if (!first) out += ',';
    first = false;
    detail::go_json_string(out, k);
    out += ':';
    detail::go_json_string_list(out, v);
  }
  out += "},\"task\":{\"type\":";
  detail::go_json_string(out, rt);
  out += ",\"index\":" + std::to_string(index) + "},\"environment\":\"cloud\"}";
  return out;
}

TFJOB_INLINE std::string ReplicaTFConfig::id() const { return to_lower(type) + "-" + std::to_string(index); }

TFJOB_INLINE std::vector<ReplicaTFConfig> gen_all_tf_configs(const TFJob& job,
                                                             const TFConfigOptions& opts) {
  std::map<std::string, std::string> by_lower;
  for (const auto& [t, s] : job.spec.tf_replica_specs) by_lower[to_lower(t)] = t;
  std::vector<ReplicaTFConfig> out;
  for (const auto& [lower, t] : by_lower) {
    const int n = job.spec.tf_replica_specs.at(t).replicas_or_default();
    for (int i = 0; i < n; ++i)
      out.push_back({t, i, replica_name(job.metadata.name, t, i), gen_tf_config(job, t, i, opts)});
  }
  return out;
}

TFJOB_INLINE bool TFConfig::is_chief() const {
  if (task_type == "chief" || task_type == "master") return true;
  if (task_type != "worker" || task_index != 0) return false;
  return !has_type("chief") && !has_type("master");
}

TFJOB_INLINE bool TFConfig::has_type(std::string_view type) const {
  std::string t(type);
  return cluster.count(t) || sparse_cluster.count(t);
}

TFJOB_INLINE int TFConfig::count(std::string_view type) const {
  std::string t(type);
  if (auto it = cluster.find(t); it != cluster.end()) return static_cast<int>(it->second.size());
  if (auto it = sparse_cluster.find(t); it != sparse_cluster.end())
    return static_cast<int>(it->second.size());
  return 0;
}

TFJOB_INLINE std::optional<std::string> TFConfig::address(std::string_view type, int index) const {
  std::string t(type);
  if (auto it = cluster.find(t); it != cluster.end()) {
    if (index >= 0 && static_cast<std::size_t>(index) < it->second.size())
      return it->second[static_cast<std::size_t>(index)];
    return std::nullopt;
  }
  if (auto it = sparse_cluster.find(t); it != sparse_cluster.end()) {
    auto a = it->second.find(index);
    if (a != it->second.end()) return a->second;
  }
  return std::nullopt;
}

TFJOB_INLINE std::string TFConfig::self_address() const { return address(task_type, task_index).value_or(""); }

TFJOB_INLINE int TFConfig::self_port() const {
  auto a = self_address();
  auto colon = a.rfind(':');
  if (colon == std::string::npos) return 0;
  try {
    return std::stoi(a.substr(colon + 1));
  } catch (...) {
    return 0;
  }
}

TFJOB_INLINE int TFConfig::size() const {
  int n = 0;
  for (const auto& [t, v] : cluster) n += static_cast<int>(v.size());
  for (const auto& [t, v] : sparse_cluster) n += static_cast<int>(v.size());
  return n;
}

}  // namespace tfjob
namespace tfjob::detail {

TFJOB_INLINE std::pair<int, int> line_col(std::string_view text, std::size_t byte) {
  int line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

}  // namespace tfjob::detail
namespace tfjob {

TFJOB_INLINE TFConfig parse_tf_config(std::string_view text) {
  auto r = tfjob::detail::read_json(text);  // nesting bounded (limits::max_depth)
  if (!r.ok()) {
    auto [line, col] = detail::line_col(text, r.byte);
    throw parse_error("TF_CONFIG is not valid JSON at line " + std::to_string(line) + ", column " +
                          std::to_string(col) + ": " + r.error,
                      line, col);
  }
  nlohmann::json j = std::move(r.value);
  auto bad = [](const std::string& what) { throw parse_error("TF_CONFIG: " + what); };
  if (!j.is_object()) bad("must be a JSON object");
  TFConfig c;
  if (auto cl = j.find("cluster"); cl != j.end() && !cl->is_null()) {
    if (!cl->is_object()) bad("\"cluster\" must be an object");
    for (const auto& [type, v] : cl->items()) {
      if (v.is_null()) continue;  // Go writes a nil slice as null ("ps":null)
      if (v.is_array()) {
        auto& list = c.cluster[type];
        for (const auto& a : v) {
          if (!a.is_string()) bad("cluster." + type + " must list \"host:port\" strings");
          list.push_back(a.get<std::string>());
        }
      } else if (v.is_object()) {
        auto& m = c.sparse_cluster[type];
        for (const auto& [k, a] : v.items()) {
          if (!a.is_string()) bad("cluster." + type + "." + k + " must be a \"host:port\" string");
          int idx = 0;
          try {
            std::size_t used = 0;
            idx = std::stoi(k, &used);
            if (used != k.size()) throw std::invalid_argument(k);
          } catch (...) {
            bad("cluster." + type + " has a non-numeric index \"" + k + "\"");
          }
          m[idx] = a.get<std::string>();
        }
        if (m.empty()) c.sparse_cluster.erase(type);
      } else {
        bad("cluster." + type + " must be a list of addresses");
      }
    }
  }
  auto task = j.find("task");
  if (task == j.end() || !task->is_object()) bad("missing \"task\" object");
  auto type = task->find("type");
  if (type == task->end() || !type->is_string() || type->get<std::string>().empty())
    bad("missing task.type");
  c.task_type = type->get<std::string>();
  if (auto idx = task->find("index"); idx != task->end() && !idx->is_null()) {
    if (!idx->is_number_integer()) bad("task.index must be an integer");
    if (idx->is_number_unsigned() ? idx->get<std::uint64_t>() > std::uint64_t(std::numeric_limits<int>::max())
                                  : idx->get<std::int64_t>() > std::numeric_limits<int>::max())
      bad("task.index " + idx->dump() + " is out of range");
    if (idx->get<std::int64_t>() < 0) bad("task.index must not be negative");
    c.task_index = idx->get<int>();
  }
  if (auto env = j.find("environment"); env != j.end() && env->is_string())
    c.environment = env->get<std::string>();
  return c;
}

TFJOB_INLINE std::optional<TFConfig> tf_config_from_env() {
  const char* v = std::getenv(env_tf_config);
  if (!v || !*v) return std::nullopt;
  return parse_tf_config(v);
}

}  // namespace tfjob
