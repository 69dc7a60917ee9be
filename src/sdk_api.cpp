// The SDK's api bodies, compiled once for the plugin, tests and benchmarks (TFJOB_SDK_COMPILED).
#define TFJOB_SDK_IMPL_API
#include <tfjob/src.hpp>
