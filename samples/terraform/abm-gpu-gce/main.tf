# An Anthos (GDC software-only) bare metal cluster on Compute Engine VMs whose workers each
# carry NVIDIA V100 GPUs, for kubectl-tfjob: TFJobs train on the workers' GPUs, TensorFlow
# Serving serves from them.
#
# Built on GoogleCloudPlatform/anthos-samples' anthos-bm-gcp-terraform, pinned to commit
# 136e6a4c (January 2026): its last release tag (anthos-bm-gcp-terraform-v0.15.6) still
# demands Terraform < 1.11 and Ubuntu 20.04; this commit accepts Terraform < 1.13 and
# defaults to Ubuntu 22.04, with the same variables. That module makes one
# admin workstation, the control plane VMs and the worker VMs from two instance templates:
# `instance_template` (admin workstation and control plane, no accelerator) and
# `instance_template_worker`, the only one given `gpu`. So only workers get GPUs. The
# terraform-google-modules/vm instance template it uses sets on_host_maintenance =
# "TERMINATE" whenever a GPU is attached (GPU VMs cannot live-migrate).

locals {
  # Terraform downloads the whole anthos-samples repository into .terraform/modules/<module
  # name>/; the module reads its templates and scripts from, and writes generated files
  # (SSH keys, the cluster YAML) under, this resources directory.
  resources_path = "${path.root}/.terraform/modules/abm/anthos-bm-gcp-terraform/resources"
}

module "abm" {
  source = "github.com/GoogleCloudPlatform/anthos-samples//anthos-bm-gcp-terraform?ref=136e6a4c2e668a2c39479aa5eead894baf1cf8ea"

  project_id       = var.project_id
  credentials_file = var.credentials_file
  resources_path   = local.resources_path
  region           = var.region
  zone             = var.zone
  abm_cluster_id   = var.abm_cluster_id
  abm_version      = var.abm_version
  mode             = var.mode
  username         = var.username

  # V100 attaches to N1 machine types only.
  machine_type   = var.machine_type
  boot_disk_size = var.boot_disk_size
  # Ubuntu 22.04 LTS, newest image of the family: NVIDIA's R580 driver (and the GPU
  # Operator's driver containers) support it. An empty image selects the family.
  image         = ""
  image_family  = "ubuntu-2204-lts"
  image_project = "ubuntu-os-cloud"
  # Nested virtualization only serves ABM's VM Runtime, which training does not use.
  enable_nested_virtualization = "false"

  gpu = {
    type  = "nvidia-tesla-v100"
    count = var.gpus_per_worker
  }

  instance_count = {
    "controlplane" : var.controlplane_count
    "worker" : var.worker_count
  }

  # Filestore + the NFS CSI driver: the `nfs-csi` storage class (ReadWriteMany), which the
  # MNIST TFJob's claim needs because its chief and workers run on different nodes.
  nfs_server         = var.nfs_server
  gcp_login_accounts = var.gcp_login_accounts
  # Also output the admin workstation's IP address and SSH key path.
  as_sub_module = true
}
