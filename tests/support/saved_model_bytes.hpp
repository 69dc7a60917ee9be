#pragma once
// The start of a saved_model.pb as TensorFlow writes it (saved_model.proto, meta_graph.proto):
// SavedModel{1: schema version, 2: MetaGraphDef{1: MetaInfoDef{1: "v1.0", 2: op list, 4: tags,
// 5: tensorflow_version, 6: tensorflow_git_version}, 2: graph}}, for tests of the reader.
#include <cstdint>
#include <string>

namespace tfjob::test {

inline std::string pb_varint(std::uint64_t v) {
  std::string s;
  do {
    unsigned char b = v & 0x7f;
    v >>= 7;
    if (v) b |= 0x80;
    s += static_cast<char>(b);
  } while (v);
  return s;
}
inline std::string pb_bytes(int field, const std::string& data) {
  return pb_varint(static_cast<std::uint64_t>(field) << 3 | 2) + pb_varint(data.size()) + data;
}

/// A SavedModel whose MetaInfoDef says `tf_version`, with an op list of `op_list_bytes` and a
/// graph of `graph_bytes` after it.
inline std::string saved_model_pb(const std::string& tf_version, std::size_t op_list_bytes = 300, std::size_t graph_bytes = 1000) {
  std::string op_list = pb_bytes(1, pb_bytes(1, "MatMul") + std::string(op_list_bytes, 'o'));  // OpList{op: OpDef{name, ...}}
  std::string info = pb_bytes(1, "v1.0") + pb_bytes(2, op_list) + pb_bytes(4, "serve") + pb_bytes(5, tf_version) +
                     pb_bytes(6, "v" + tf_version + "-rc0-g1234567");
  std::string meta_graph = pb_bytes(1, info) + pb_bytes(2, std::string(graph_bytes, 'g'));
  return pb_varint(1 << 3 | 0) + pb_varint(1) + pb_bytes(2, meta_graph);
}

}  // namespace tfjob::test
