// The SDK's local bodies, compiled once for the plugin, tests and benchmarks (TFJOB_SDK_COMPILED).
#define TFJOB_SDK_IMPL_LOCAL
#include <tfjob/src.hpp>
