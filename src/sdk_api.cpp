// The SDK's api bodies, compiled once for the plugin, tests and samples (TFJOB_SDK_COMPILED).
#define TFJOB_SDK_IMPL_API
#include <tfjob/src.hpp>
