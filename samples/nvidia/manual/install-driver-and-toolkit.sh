#!/usr/bin/env bash
# Installs, on ONE GPU node (run it on every worker, as root), the NVIDIA R580 driver and
# the NVIDIA container toolkit, and makes the toolkit's runtime containerd's default so
# that every container, the device plugin's and the training pods', gets the driver.
#
#   gcloud compute scp samples/nvidia/manual/install-driver-and-toolkit.sh tfjob-gpu-abm-w1-001: --zone ZONE
#   gcloud compute ssh tfjob-gpu-abm-w1-001 --zone ZONE -- sudo bash install-driver-and-toolkit.sh
#
# Ubuntu 22.04 (the image of samples/terraform/abm-gpu-gce). Step 1 alone is the
# "driver on the host" route for gpu-operator-host-driver-values.yaml; steps 1-3 plus
# nvidia-device-plugin.yaml are the manual route.
set -euo pipefail
BRANCH=580   # the last driver branch that supports Volta (V100); do not go newer

if [ "$(id -u)" != 0 ]; then echo "run as root (sudo)" >&2; exit 1; fi
. /etc/os-release
echo "== node $(hostname), $PRETTY_NAME, kernel $(uname -r)"

# 1. The driver: Ubuntu's signed, prebuilt R580 server driver with the PROPRIETARY kernel
#    modules (the -open variants need Turing or newer and do not support the V100).
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q ubuntu-drivers-common
ubuntu-drivers install --gpgpu "nvidia:${BRANCH}-server"
apt-get install -y -q "nvidia-utils-${BRANCH}-server"
# Keep unattended upgrades from moving the driver to another branch.
apt-mark hold "nvidia-utils-${BRANCH}-server" || true

# 2. The container toolkit from NVIDIA's repository.
apt-get install -y -q curl gpg
curl -fsSL https://nvidia.github.io/libnvidia-container/gpgkey |
  gpg --dearmor --yes -o /usr/share/keyrings/nvidia-container-toolkit-keyring.gpg
curl -fsSL https://nvidia.github.io/libnvidia-container/stable/deb/nvidia-container-toolkit.list |
  sed 's#deb https://#deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] https://#g' \
  > /etc/apt/sources.list.d/nvidia-container-toolkit.list
apt-get update -q
apt-get install -y -q nvidia-container-toolkit

# 3. containerd: add the "nvidia" runtime and make it the default, then restart. Bare
#    metal cluster upgrades may rewrite /etc/containerd/config.toml: run this step again
#    after an upgrade (check with: containerd config dump | grep -n nvidia).
nvidia-ctk runtime configure --runtime=containerd --set-as-default
systemctl restart containerd

# The kernel module loads at the next boot if it could not load now (e.g. after a kernel
# upgrade in the same run); nvidia-smi says which.
if nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader; then
  echo "== driver ready; now: kubectl apply -f samples/nvidia/manual/nvidia-device-plugin.yaml"
else
  echo "== nvidia-smi failed: reboot the node (sudo reboot), then run nvidia-smi again" >&2
  exit 1
fi
