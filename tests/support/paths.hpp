#pragma once
// Where the tests find the source tree, the build tree, the CRD, the plugin and python3.
#include <string>

namespace tfjob::test {
std::string source_dir();       ///< the repository root
std::string binary_dir();       ///< the CMake build tree
std::string crd_file();         ///< the official TFJob CRD (tests/data/crds copy)
std::string shared_crd_file();  ///< ../shared/crds copy, or "" when absent
std::string python();           ///< a python3 with jsonschema + yaml, or "" when none
std::string plugin_path();      ///< the built kubectl-tfjob, or "" when not built
}  // namespace tfjob::test
