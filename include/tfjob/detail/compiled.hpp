#pragma once
/// \file How the SDK's function bodies are compiled: in every translation unit (header-only,
/// the default) or once (`TFJOB_SDK_COMPILED`), as Boost.Asio's BOOST_ASIO_SEPARATE_COMPILATION
/// and spdlog's SPDLOG_COMPILED_LIB offer.
///
/// - Header-only: nothing to define or link; every header carries its bodies, `inline`.
/// - Compiled: define `TFJOB_SDK_COMPILED` for every translation unit of the program (the
///   CMake target `tfjob::sdk_compiled` does) and include `<tfjob/src.hpp>` in exactly one
///   source file. Headers then carry declarations, types, templates and one-line helpers only,
///   so a file that includes `<tfjob/tfjob.hpp>` no longer parses and instantiates the SDK's
///   bodies (measured in BENCHMARKS.md, "Compile time").
///
/// Each header reads as its interface: declarations with their one-line docs, types and
/// templates. Its bodies live in a sibling `impl/<name>_inl.hpp` (CLI11's layout), which the
/// header includes at its end inside its area's section (`#if TFJOB_SDK_DEFINE_API`), each
/// definition marked `TFJOB_INLINE`; an impl file is never included on its own. The areas are the
/// directories: CORE (tfjob/ and tfjob/detail/), API, KUBE, GPU, LOCAL, SERVING, WORKFLOW.
/// A virtual function whose body is in `impl/` is declared `TFJOB_INLINE` in its class too:
/// declared without it, it is the class's key function (Itanium C++ ABI), and header-only every
/// file that includes the header emits the vtable and every override, optimized, whether it
/// uses the class or not (BENCHMARKS.md, "Compile time").
/// A source file may compile one area's bodies only (`#define TFJOB_SDK_IMPL_KUBE` before
/// `#include <tfjob/src.hpp>`), so that a build compiles the areas in parallel (src/ does).

#include <type_traits>  // std::enable_if_t, for TFJOB_JSON_FN

#if defined(TFJOB_SDK_COMPILED)
#define TFJOB_INLINE
#else
#define TFJOB_INLINE inline
#endif

/// The value types' JSON converters and decoders (`to_json`, `from_json`, `decode_fields`)
/// are declared and defined `TFJOB_JSON_FN to_json(TFJOB_JSON& j, const T& v)`, without
/// TFJOB_INLINE. Header-only, that is a function template over the JSON type, constrained to
/// `nlohmann::json` (nlohmann's ADL calls and the decoder's find it as before), so that its body
/// and the field visitors it instantiates are compiled only where the type is used: a plain
/// inline body instantiates them in every translation unit that includes the header. Compiled,
/// it is a plain `void to_json(nlohmann::json& j, ...)`, defined once in src/.
#if defined(TFJOB_SDK_COMPILED)
#define TFJOB_JSON_FN void
#define TFJOB_JSON nlohmann::json
#else
#define TFJOB_JSON_FN \
  template <class TfjobJson> std::enable_if_t<std::is_same_v<TfjobJson, nlohmann::json>>
#define TFJOB_JSON TfjobJson
#endif

#if defined(TFJOB_SDK_IMPL_ALL)  // <tfjob/src.hpp> with no area named: every area
#define TFJOB_SDK_IMPL_CORE
#define TFJOB_SDK_IMPL_API
#define TFJOB_SDK_IMPL_KUBE
#define TFJOB_SDK_IMPL_GPU
#define TFJOB_SDK_IMPL_LOCAL
#define TFJOB_SDK_IMPL_SERVING
#define TFJOB_SDK_IMPL_WORKFLOW
#endif

#if !defined(TFJOB_SDK_COMPILED) || defined(TFJOB_SDK_IMPL_CORE)
#define TFJOB_SDK_DEFINE_CORE 1
#else
#define TFJOB_SDK_DEFINE_CORE 0
#endif
#if !defined(TFJOB_SDK_COMPILED) || defined(TFJOB_SDK_IMPL_API)
#define TFJOB_SDK_DEFINE_API 1
#else
#define TFJOB_SDK_DEFINE_API 0
#endif
#if !defined(TFJOB_SDK_COMPILED) || defined(TFJOB_SDK_IMPL_KUBE)
#define TFJOB_SDK_DEFINE_KUBE 1
#else
#define TFJOB_SDK_DEFINE_KUBE 0
#endif
#if !defined(TFJOB_SDK_COMPILED) || defined(TFJOB_SDK_IMPL_GPU)
#define TFJOB_SDK_DEFINE_GPU 1
#else
#define TFJOB_SDK_DEFINE_GPU 0
#endif
#if !defined(TFJOB_SDK_COMPILED) || defined(TFJOB_SDK_IMPL_LOCAL)
#define TFJOB_SDK_DEFINE_LOCAL 1
#else
#define TFJOB_SDK_DEFINE_LOCAL 0
#endif
#if !defined(TFJOB_SDK_COMPILED) || defined(TFJOB_SDK_IMPL_SERVING)
#define TFJOB_SDK_DEFINE_SERVING 1
#else
#define TFJOB_SDK_DEFINE_SERVING 0
#endif
#if !defined(TFJOB_SDK_COMPILED) || defined(TFJOB_SDK_IMPL_WORKFLOW)
#define TFJOB_SDK_DEFINE_WORKFLOW 1
#else
#define TFJOB_SDK_DEFINE_WORKFLOW 0
#endif
