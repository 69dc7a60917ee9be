# The SDK's dependencies, all from Debian's packages (tfjobConfig.cmake.in mirrors this
# list with find_dependency for consumers of the installed package).
find_package(Threads REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(ZLIB REQUIRED)  # workflow/archive.hpp writes .tar.gz
# Debian's cpp-httplib (0.11.4) is a compiled library with no CMake config: use its
# pkg-config file, which also carries its feature macros (CPPHTTPLIB_OPENSSL_SUPPORT...).
find_package(PkgConfig REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET GLOBAL cpp-httplib)
