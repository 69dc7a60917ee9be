#pragma once
/// \file The bodies of <tfjob/api/k8s/objects.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/k8s/objects.hpp>, never this file.

namespace tfjob::k8s {

// Each type's fields, listed once for both directions (detail::write_fields, read_fields).

template <class F>
void fields(NamespaceStatus& v, F& f) {
  f("phase", v.phase);
}

template <class F>
void fields(Namespace& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

template <class F>
void fields(ServicePort& v, F& f) {
  f("name", v.name);
  f("protocol", v.protocol);
  f("port", v.port);
  f("targetPort", v.target_port);
  f("nodePort", v.node_port);
}

template <class F>
void fields(ServiceSpec& v, F& f) {
  f("type", v.type);
  f("clusterIP", v.cluster_ip);
  f("ports", v.ports);
  f("selector", v.selector);
}

template <class F>
void fields(Service& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

template <class F>
void fields(ConfigMap& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("data", v.data);
  f("binaryData", v.binary_data);
}

template <class F>
void fields(Secret& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("type", v.type);
  f("data", v.data);
  f("stringData", v.string_data);
}

template <class F>
void fields(ClaimSpec& v, F& f) {
  f("accessModes", v.access_modes);
  f("storageClassName", v.storage_class_name);
  f("volumeName", v.volume_name);
  f("resources", v.resources);
  f("volumeMode", v.volume_mode);
}

template <class F>
void fields(ClaimStatus& v, F& f) {
  f("phase", v.phase);
  f("accessModes", v.access_modes);
  f.quantities("capacity", v.capacity);
}

template <class F>
void fields(PersistentVolumeClaim& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const NamespaceStatus& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Namespace& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ServicePort& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ServiceSpec& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Service& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ConfigMap& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Secret& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ClaimSpec& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ClaimStatus& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PersistentVolumeClaim& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Namespace& v) { detail::decode_lenient(j, "Namespace", v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Service& v) { detail::decode_lenient(j, "Service", v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ConfigMap& v) { detail::decode_lenient(j, "ConfigMap", v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Secret& v) { detail::decode_lenient(j, "Secret", v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, PersistentVolumeClaim& v) { detail::decode_lenient(j, "PersistentVolumeClaim", v); }

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, NamespaceStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Namespace& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ServicePort& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ServiceSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Service& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ConfigMap& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Secret& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ClaimSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ClaimStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PersistentVolumeClaim& v) {
  detail::read_fields(d, j, path, v);
}

}  // namespace tfjob::k8s
