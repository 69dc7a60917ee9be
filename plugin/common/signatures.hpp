#pragma once
/// \file A served model's signatures as `models` and `serve` print them: one row per input
/// and output (signature, role, name, dtype, shape as saved_model_cli shows it).
#include "output.hpp"

#include <tfjob/serving/signature.hpp>

#include <ostream>

namespace tfjob::cli {

inline void print_signatures(std::ostream& out, const serving::ModelMetadata& m) {
  Table t({"signature", "role", "name", "dtype", "shape"});
  for (const auto& s : m.signatures) {
    for (const auto& i : s.inputs) t.add_row({s.key, "input", i.key, i.dtype, serving::shape_text(i)});
    for (const auto& o : s.outputs) t.add_row({s.key, "output", o.key, o.dtype, serving::shape_text(o)});
    if (s.inputs.empty() && s.outputs.empty()) t.add_row({s.key, "", "", "", ""});
  }
  t.print(out);
}

}  // namespace tfjob::cli
