#pragma once
/// \file What every fuzz target shares. A target is `int NAME(const uint8_t*, size_t)`: it
/// feeds the bytes to one of the SDK's public parsers of outside input and returns 0. The
/// SDK's own error family (`tfjob::error`: a clear message saying what is wrong) is the
/// expected answer to bad input and is swallowed; anything else escaping (a JSON library
/// exception, std::out_of_range, std::bad_alloc), a crash, a sanitizer report, a hang or
/// unbounded memory is a finding. The same functions run under libFuzzer (tests/fuzz/*.cpp,
/// clang) and in the unit test that replays the corpus and the regressions (fuzz_test.cpp).

#include <tfjob/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tfjob::fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `f`, swallowing the SDK's error family (the expected outcome of bad input).
template <class F>
inline void expect_sdk_errors_only(F&& f) {
  try {
    f();
  } catch (const tfjob::error&) {
  }
}

}  // namespace tfjob::fuzz
