#include "support/paths.hpp"

namespace tfjob::test {
std::string source_dir() { return TFJOB_SOURCE_DIR; }
std::string binary_dir() { return TFJOB_BINARY_DIR; }
std::string crd_file() { return TFJOB_CRD_FILE; }
std::string shared_crd_file() { return TFJOB_SHARED_CRD_FILE; }
std::string python() { return TFJOB_PYTHON; }
std::string plugin_path() { return TFJOB_PLUGIN_PATH; }
}  // namespace tfjob::test
