// The SDK's core bodies, compiled once for the plugin, tests and samples (TFJOB_SDK_COMPILED).
#define TFJOB_SDK_IMPL_CORE
#include <tfjob/src.hpp>
