// The SDK's core bodies, compiled once for the plugin, tests and benchmarks (TFJOB_SDK_COMPILED).
#define TFJOB_SDK_IMPL_CORE
#include <tfjob/src.hpp>
