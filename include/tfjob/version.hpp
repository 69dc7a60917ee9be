#pragma once
/// \file Version of the SDK and the plugin (one number for both).

namespace tfjob {
/// The SDK's semantic version; the plugin reports the same.
inline constexpr const char* version = "0.1.0";
/// The Kubeflow training operator release whose rules the SDK mirrors.
inline constexpr const char* operator_version = "v1.9";
}  // namespace tfjob
