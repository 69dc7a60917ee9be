// The SDK's gpu bodies, compiled once for the plugin, tests and benchmarks (TFJOB_SDK_COMPILED).
#define TFJOB_SDK_IMPL_GPU
#include <tfjob/src.hpp>
