// The SDK's serving bodies, compiled once for the plugin, tests and benchmarks (TFJOB_SDK_COMPILED).
#define TFJOB_SDK_IMPL_SERVING
#include <tfjob/src.hpp>
