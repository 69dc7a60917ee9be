#pragma once
/// \file The bodies of <tfjob/api/validation.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/validation.hpp>, never this file.

namespace tfjob::detail {

TFJOB_INLINE std::vector<std::string> dns1035_label_errors(const std::string& value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back("must be no more than 63 characters");
  bool ok = !value.empty() && value.front() >= 'a' && value.front() <= 'z';
  for (char c : value)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) ok = false;
  if (ok && value.back() == '-') ok = false;
  if (!ok)
    errs.push_back(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
        "with an alphabetic character, and end with an alphanumeric character (e.g. "
        "'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
  return errs;
}

TFJOB_INLINE std::vector<std::string> dns1123_label_errors(const std::string& value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back("must be no more than 63 characters");
  bool ok = !value.empty() && is_lower_alnum(value.front()) && is_lower_alnum(value.back());
  for (char c : value)
    if (!is_lower_alnum(c) && c != '-') ok = false;
  if (!ok)
    errs.push_back(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
        "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  return errs;
}

TFJOB_INLINE bool is_alnum_ascii(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

TFJOB_INLINE bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

TFJOB_INLINE bool is_qualified_name_part(const std::string& s) {
  if (s.empty() || !is_alnum_ascii(s.front()) || !is_alnum_ascii(s.back())) return false;
  for (char c : s)
    if (!is_alnum_ascii(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

TFJOB_INLINE bool is_dns1123_subdomain(const std::string& s) {
  std::size_t start = 0;
  for (;;) {
    std::size_t dot = s.find('.', start);
    std::size_t end = dot == std::string::npos ? s.size() : dot;
    if (end == start || !is_lower_alnum(s[start]) || !is_lower_alnum(s[end - 1])) return false;
    for (std::size_t i = start; i < end; ++i)
      if (!is_lower_alnum(s[i]) && s[i] != '-') return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

TFJOB_INLINE std::vector<std::string> qualified_name_errors(const std::string& value) {
  std::vector<std::string> errs;
  std::string prefix, name = value;
  auto slash = value.find('/');
  if (slash != std::string::npos) {
    prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (value.find('/', slash + 1) != std::string::npos) {
      errs.push_back("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                     "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                     "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
                     "and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > 253) errs.push_back("prefix part must be no more than 253 characters");
      if (!is_dns1123_subdomain(prefix))
        errs.push_back("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                       "'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
                       "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else {
    if (name.size() > 63) errs.push_back("name part must be no more than 63 characters");
    if (!is_qualified_name_part(name))
      errs.push_back("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
                     "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
                     "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  }
  return errs;
}

TFJOB_INLINE std::vector<std::string> label_value_errors(const std::string& value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back("must be no more than 63 characters");
  if (!(value.empty() || is_qualified_name_part(value)))
    errs.push_back("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
                   "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                   "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  return errs;
}

TFJOB_INLINE std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

TFJOB_INLINE std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

TFJOB_INLINE field_error required(std::string field, std::string detail) {
  return {std::move(field), "Required value", std::move(detail)};
}

TFJOB_INLINE field_error invalid(std::string field, const std::string& value, std::string detail) {
  return {std::move(field), "Invalid value", value + ": " + detail};
}

TFJOB_INLINE field_error not_supported(std::string field, const std::string& value,
                                       const std::vector<std::string>& supported) {
  std::vector<std::string> q;
  for (const auto& s : supported) q.push_back(quoted(s));
  return {std::move(field), "Unsupported value",
          quoted(value) + ": supported values: " + join(q, ", ")};
}

TFJOB_INLINE field_error forbidden(std::string field, std::string detail) {
  return {std::move(field), "Forbidden", std::move(detail)};
}

TFJOB_INLINE field_error duplicate(std::string field, const std::string& value) {
  return {std::move(field), "Duplicate value", quoted(value)};
}

TFJOB_INLINE void validate_container_resources(const nlohmann::json& container, const std::string& path,
                                               std::vector<field_error>& errs) {
  auto res = container.find("resources");
  if (res == container.end() || !res->is_object()) return;
  for (const char* kind : {"limits", "requests"}) {
    auto m = res->find(kind);
    if (m == res->end() || m->is_null()) continue;
    const std::string p = path + ".resources." + kind;
    if (!m->is_object()) {
      errs.push_back(invalid(p, m->dump(), "must be a map of resource name to quantity"));
      continue;
    }
    for (const auto& [name, q] : m->items()) {
      const std::string qp = p + "[" + name + "]";
      if (q.is_number()) {
        if (q.get<double>() < 0) errs.push_back(invalid(qp, q.dump(), "must be greater than or equal to 0"));
      } else if (!q.is_string() || !is_quantity(q.get<std::string>())) {
        errs.push_back(invalid(qp, q.is_string() ? quoted(q.get<std::string>()) : q.dump(),
                               "must be a quantity, e.g. 500m, 2, 4Gi, 512Mi"));
      } else if (Quantity::parse(q.get<std::string>()).value() < 0) {
        errs.push_back(invalid(qp, quoted(q.get<std::string>()), "must be greater than or equal to 0"));
      }
    }
  }
}

TFJOB_INLINE void validate_metadata(const TFJob& job, std::vector<field_error>& errs) {
  // metadata.name: NameIsDNS1035Label (a name to be generated by the server is not checked).
  if (job.metadata.name.empty()) {
    if (job.metadata.generate_name.empty())
      errs.push_back(required("metadata.name", "name or generateName is required"));
  } else if (auto e = dns1035_label_errors(job.metadata.name); !e.empty()) {
    errs.push_back(invalid("metadata.name", quoted(job.metadata.name), "should match: " + join(e, ",")));
  }
  // metadata.namespace: ValidateObjectMeta's ValidateNamespaceName (a DNS-1123 label); the
  // server would say the namespace does not exist, and the way to create it would fail too
  if (!job.metadata.namespace_.empty())
    if (auto e = dns1123_label_errors(job.metadata.namespace_); !e.empty())
      errs.push_back(invalid("metadata.namespace", quoted(job.metadata.namespace_), join(e, ",")));
  // metadata.labels and metadata.annotations, as the API server's ObjectMeta validation
  // (ValidateLabels, ValidateAnnotations) judges every object
  for (const auto& [k, v] : job.metadata.labels) {
    for (const auto& e : qualified_name_errors(k)) errs.push_back(invalid("metadata.labels", quoted(k), e));
    for (const auto& e : label_value_errors(v)) errs.push_back(invalid("metadata.labels", quoted(v), e));
  }
  std::size_t annotation_bytes = 0;
  for (const auto& [k, v] : job.metadata.annotations) {
    for (const auto& e : qualified_name_errors(k)) errs.push_back(invalid("metadata.annotations", quoted(k), e));
    annotation_bytes += k.size() + v.size();
  }
  if (annotation_bytes > 256 * 1024)
    errs.push_back({"metadata.annotations", "Too long", "must have at most 262144 bytes"});
  if (!job.api_version.empty() && job.api_version != tfjob::api_version)
    errs.push_back(not_supported("apiVersion", job.api_version, {tfjob::api_version}));
  if (!job.kind.empty() && job.kind != tfjob::kind) errs.push_back(not_supported("kind", job.kind, {tfjob::kind}));
}

TFJOB_INLINE void validate_run_policy(const TFJob& job, std::vector<field_error>& errs) {
  // runPolicy (ValidateRunPolicy + enum/range checks)
  const auto& rp = job.spec.run_policy;
  if (rp.managed_by && *rp.managed_by != managed_by_kubeflow && *rp.managed_by != managed_by_multikueue)
    errs.push_back(not_supported("spec.runPolicy.managedBy", *rp.managed_by,
                                 {managed_by_multikueue, managed_by_kubeflow}));
  if (rp.clean_pod_policy && *rp.clean_pod_policy != clean_pod_policy::All &&
      *rp.clean_pod_policy != clean_pod_policy::Running && *rp.clean_pod_policy != clean_pod_policy::None)
    errs.push_back(not_supported("spec.runPolicy.cleanPodPolicy", *rp.clean_pod_policy,
                                 {clean_pod_policy::All, clean_pod_policy::Running, clean_pod_policy::None}));
  if (rp.ttl_seconds_after_finished && *rp.ttl_seconds_after_finished < 0)
    errs.push_back(invalid("spec.runPolicy.ttlSecondsAfterFinished",
                           std::to_string(*rp.ttl_seconds_after_finished), "must be greater than or equal to 0"));
  if (rp.active_deadline_seconds && *rp.active_deadline_seconds <= 0)
    errs.push_back(invalid("spec.runPolicy.activeDeadlineSeconds",
                           std::to_string(*rp.active_deadline_seconds), "must be greater than 0"));
  if (rp.backoff_limit && *rp.backoff_limit < 0)
    errs.push_back(invalid("spec.runPolicy.backoffLimit", std::to_string(*rp.backoff_limit),
                           "must be greater than or equal to 0"));
  if (rp.scheduling_policy) {
    const auto& sp = *rp.scheduling_policy;
    if (sp.min_available && *sp.min_available < 0)
      errs.push_back(invalid("spec.runPolicy.schedulingPolicy.minAvailable",
                             std::to_string(*sp.min_available), "must be greater than or equal to 0"));
    if (sp.min_resources.is_object())
      for (const auto& [name, q] : sp.min_resources.items())
        if (!(q.is_number() || (q.is_string() && is_quantity(q.get<std::string>()))))
          errs.push_back(invalid("spec.runPolicy.schedulingPolicy.minResources[" + name + "]",
                                 q.is_string() ? quoted(q.get<std::string>()) : q.dump(),
                                 "must be a quantity, e.g. 500m, 2, 4Gi, 512Mi"));
  }
  if (job.spec.success_policy && !job.spec.success_policy->empty() &&
      *job.spec.success_policy != success_policy::AllWorkers)
    errs.push_back(not_supported("spec.successPolicy", *job.spec.success_policy,
                                 {success_policy::Default, success_policy::AllWorkers}));
}

TFJOB_INLINE bool validate_replica_containers(const ReplicaSpec& r, const std::string& containers_path,
                                              std::vector<field_error>& errs) {
  const auto* cs = containers(r);
  if (!cs || cs->empty()) errs.push_back(required(containers_path, "must be specified"));
  bool default_container_present = false;
  // the pod's volumes, each name once (core/v1 ValidateVolumes: the operator's pods would be
  // refused with 422 after the job was accepted, and the job would wait without them)
  std::set<std::string> volumes;
  const std::string pod_path = containers_path.substr(0, containers_path.size() - std::string(".containers").size());
  if (r.template_.is_object())
    if (auto spec = r.template_.find("spec"); spec != r.template_.end() && spec->is_object())
      if (auto vs = spec->find("volumes"); vs != spec->end() && vs->is_array())
        for (std::size_t k = 0; k < vs->size(); ++k) {
          const std::string name = tfjob::detail::value_at((*vs)[k], "name", std::string());
          if (!name.empty() && !volumes.insert(name).second)
            errs.push_back(duplicate(pod_path + ".volumes[" + std::to_string(k) + "].name", name));
        }
  if (cs) {
    for (std::size_t i = 0; i < cs->size(); ++i) {
      const auto& c = (*cs)[i];
      const std::string cpath = containers_path + "[" + std::to_string(i) + "]";
      if (!c.is_object()) continue;
      // each mount path once in a container (core/v1 validateVolumeMounts: "must be unique")
      if (auto ms = c.find("volumeMounts"); ms != c.end() && ms->is_array()) {
        std::set<std::string> paths;
        for (std::size_t k = 0; k < ms->size(); ++k) {
          const std::string path = tfjob::detail::value_at((*ms)[k], "mountPath", std::string());
          if (!path.empty() && !paths.insert(path).second)
            errs.push_back(invalid(cpath + ".volumeMounts[" + std::to_string(k) + "].mountPath", quoted(path), "must be unique"));
        }
      }
      auto image = c.find("image");
      if (image == c.end() || !image->is_string() || image->get<std::string>().empty())
        errs.push_back(required(cpath + ".image", "must be required"));
      if (tfjob::detail::value_at(c, "name", std::string()) == default_container_name) default_container_present = true;
      validate_container_resources(c, cpath, errs);
      if (auto ports = c.find("ports"); ports != c.end() && ports->is_array())
        for (std::size_t k = 0; k < ports->size(); ++k) {
          const auto& p = (*ports)[k];
          auto cp = p.find("containerPort");
          if (p.is_object() && cp != p.end() &&
              (!cp->is_number_integer() || cp->get<long long>() < 1 || cp->get<long long>() > 65535))
            errs.push_back(invalid(cpath + ".ports[" + std::to_string(k) + "].containerPort", cp->dump(),
                                   "must be between 1 and 65535, inclusive"));
        }
    }
  }
  return default_container_present;
}

TFJOB_INLINE void validate_replica_spec(const std::string& specs_path, const std::string& rtype, const ReplicaSpec& r,
                                        std::map<std::string, std::string>& seen, int& chief_or_master,
                                        std::vector<field_error>& errs) {
  const std::string role_path = specs_path + "[" + rtype + "]";
  const std::string containers_path = role_path + ".template.spec.containers";
  auto canon = canonical_replica_type(rtype);
  if (!canon) {
    errs.push_back(not_supported(specs_path, rtype,
                                 {replica_type::Chief, replica_type::Evaluator, replica_type::Master,
                                  replica_type::PS, replica_type::Worker}));
  } else {
    auto [it, fresh] = seen.emplace(*canon, rtype);
    if (!fresh) errs.push_back(duplicate(role_path, rtype + " (same replica type as " + it->second + ")"));
    if (is_chief_or_master(*canon)) ++chief_or_master;  // the operator counts exact keys;
                                                        // defaulting makes them exact
  }
  if (r.replicas && *r.replicas < 0)
    errs.push_back(invalid(role_path + ".replicas", std::to_string(*r.replicas),
                           "must be greater than or equal to 0"));
  if (!r.restart_policy.empty() && r.restart_policy != restart_policy::Always &&
      r.restart_policy != restart_policy::OnFailure && r.restart_policy != restart_policy::Never &&
      r.restart_policy != restart_policy::ExitCode)
    errs.push_back(not_supported(role_path + ".restartPolicy", r.restart_policy,
                                 {restart_policy::Always, restart_policy::ExitCode,
                                  restart_policy::Never, restart_policy::OnFailure}));
  if (!validate_replica_containers(r, containers_path, errs))
    errs.push_back(required(containers_path, std::string("must have at least one container with name ") +
                                                 default_container_name));
}

TFJOB_INLINE void validate_replica_specs(const TFJob& job, std::vector<field_error>& errs) {
  // tfReplicaSpecs (validateTFReplicaSpecs)
  const std::string specs_path = "spec.tfReplicaSpecs";
  if (job.spec.tf_replica_specs.empty())
    errs.push_back(required(specs_path, "must be required"));
  int chief_or_master = 0;
  std::map<std::string, std::string> seen;  // lower-case -> first key
  for (const auto& [rtype, r] : job.spec.tf_replica_specs)
    validate_replica_spec(specs_path, rtype, r, seen, chief_or_master, errs);
  if (chief_or_master > 1) errs.push_back(forbidden(specs_path, "must not have more than 1 Chief or Master role"));
}

}  // namespace tfjob::detail
namespace tfjob {

TFJOB_INLINE std::vector<field_error> manifest_name_errors(const TFJob& job) {
  if (!job.metadata.name.empty()) return {};
  return {detail::required("metadata.name", std::string("a TFJob from a manifest is applied by its name") +
                                        (job.metadata.generate_name.empty() ? "" : "; generateName is not supported (as with kubectl apply)") +
                                        ": give metadata.name")};
}

TFJOB_INLINE std::vector<field_error> validate(const TFJob& job) {
  std::vector<field_error> errs;
  detail::validate_metadata(job, errs);
  detail::validate_run_policy(job, errs);
  detail::validate_replica_specs(job, errs);
  return errs;
}

TFJOB_INLINE void validate_or_throw(const TFJob& job) {
  auto errs = validate(job);
  if (!errs.empty()) throw validation_error(std::move(errs));
}

}  // namespace tfjob
