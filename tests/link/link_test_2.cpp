// Second translation unit of the link test (see link_test_1.cpp).
#include <tfjob/tfjob.hpp>

int link_test_2() {
  auto docs = tfjob::parse_manifests("a: 1\n---\nb: 2\n");
  return static_cast<int>(docs.size());
}
