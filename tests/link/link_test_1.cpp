// Two translation units include the whole SDK and are linked into one program: any
// definition in a header that is not `inline` breaks the link (CLI11's link test).
#include <tfjob/tfjob.hpp>

int link_test_2();

int main() {
  auto job = tfjob::TFJobBuilder("link").image("img").workers(2).build();
  auto cfg = tfjob::gen_tf_config(job, "worker", 1);
  return (cfg && link_test_2() == 2) ? 0 : 1;
}
