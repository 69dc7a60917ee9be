// The SDK's workflow bodies, compiled once for the plugin, tests and benchmarks (TFJOB_SDK_COMPILED).
#define TFJOB_SDK_IMPL_WORKFLOW
#include <tfjob/src.hpp>
