#pragma once
/// \file TF Serving's model config file read back: `parse_model_config`, over a small,
/// bounded reader of protobuf's text format (fields `name: value`, messages `name { ... }`,
/// strings, integers, # comments; depth 16), one step per message of ModelServerConfig
/// (tensorflow_serving/config/model_server_config.proto). `serve label` reads a server's
/// ConfigMap with it; render_model_config (model_config.hpp) writes what it reads.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/serving/model_config.hpp>

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::serving {

/// Parses a text-format ModelServerConfig (model_config_list only; custom_model_config is
/// not served by this tool). Throws tfjob::error naming the line and what is wrong; unknown
/// fields of a config (logging_config, model_type, ...) are skipped, as TF Serving's own
/// text parser would not (it refuses them): this reader serves `serve label` and the tests,
/// which must read what a user may have added by hand.
ModelServerConfig parse_model_config(const std::string& text);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/model_config_text_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
