#pragma once
/// \file The bodies of <tfjob/kube/api.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/api.hpp>, never this file.

namespace tfjob::kube {

namespace detail {

TFJOB_INLINE const std::string& api_need_namespace(const RequestBuilder& rb, const std::string& name, const char* verb) {
  if (rb.resource().namespaced && rb.namespace_().empty())
    throw tfjob::error(std::string("cannot ") + verb + " " + rb.resource().qualified() + "/" + name +
                       ": a namespace is required (this Api spans all namespaces)");
  return name;
}

TFJOB_INLINE void api_check_sendable(const RequestBuilder& rb, const nlohmann::json& j) {
  if (!j.is_object()) throw tfjob::error("cannot send " + rb.resource().kind + ": it is not a JSON object");
  if (rb.resource().namespaced) {
    std::string ons = tfjob::detail::value_at(j, "/metadata/namespace"_json_pointer, std::string());
    if (!ons.empty() && !rb.namespace_().empty() && ons != rb.namespace_())
      throw tfjob::error("the namespace of the provided object \"" + ons +
                         "\" does not match the namespace \"" + rb.namespace_() +
                         "\"; pass -n " + ons + " or remove metadata.namespace");
  }
}

}  // namespace detail
}  // namespace tfjob::kube
