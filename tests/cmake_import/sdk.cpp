// The SDK's bodies for the compiled-mode consumer: the one file of the program that includes
// <tfjob/src.hpp> (include/tfjob/detail/compiled.hpp).
#include <tfjob/src.hpp>
