// The SDK's kube bodies, compiled once for the plugin, tests and benchmarks (TFJOB_SDK_COMPILED).
#define TFJOB_SDK_IMPL_KUBE
#include <tfjob/src.hpp>
