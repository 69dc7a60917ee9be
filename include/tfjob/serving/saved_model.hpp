#pragma once
/// \file What a SavedModel says about the TensorFlow that wrote it, read from the first bytes
/// of `saved_model.pb` with a small protobuf wire-format reader (pure, bounded, total: any
/// byte string is safe). The fields, from tensorflow/core/protobuf/saved_model.proto and
/// meta_graph.proto:
///   SavedModel   { int64 saved_model_schema_version = 1; repeated MetaGraphDef meta_graphs = 2; }
///   MetaGraphDef { MetaInfoDef meta_info_def = 1; GraphDef graph_def = 2; ... }
///   MetaInfoDef  { string meta_graph_version = 1; OpList stripped_op_list = 2; ...
///                  string tensorflow_version = 5; string tensorflow_git_version = 6; }
/// Protobuf writes fields in number order, so meta_info_def leads the first MetaGraphDef and
/// a prefix of the file holding the op list is enough; the graph that follows is not needed.

#include <tfjob/detail/compiled.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tfjob::serving {

/// The exporting TensorFlow, as far as the bytes tell.
struct SavedModelInfo {
  bool parsed = false;            ///< the bytes began as a SavedModel with a MetaGraphDef
  std::string tensorflow_version; ///< MetaInfoDef.tensorflow_version ("2.20.0"), "" when not reached
  std::string tensorflow_git_version;
  bool truncated = false;         ///< the prefix ended before meta_info_def did
};

/// The TensorFlow version in the first bytes of a saved_model.pb (a prefix is enough: see
/// the file comment). Bytes that are not a SavedModel give `parsed` false.
SavedModelInfo saved_model_info(std::string_view bytes);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/saved_model_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
