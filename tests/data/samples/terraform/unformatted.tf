# Broken on purpose (tests/cmake/samples.cmake): not in `terraform fmt` style.
module "abm" {
source = "./x"
  gpu = {type="nvidia-tesla-v100",count=1}
}
