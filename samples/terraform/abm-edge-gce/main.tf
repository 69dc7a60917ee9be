# A one-node GDC software-only for bare metal (Anthos bare metal) cluster with the edge
# profile on a Compute Engine VM sized within that profile, no GPU: the cluster kubectl-tfjob
# serves an image classifier on with `serve --profile edge` (docs/edge.md).
#
# Built on the same GoogleCloudPlatform/anthos-samples anthos-bm-gcp-terraform module as
# ../abm-gpu-gce, pinned to the same commit 136e6a4c: it makes the admin workstation (where
# bmctl runs), one control plane VM and no worker, the VXLAN between them (10.200.0.0/24),
# the service accounts and SSH access. Its own cluster template is a hybrid cluster with a
# worker node pool and no profile, so the module runs in `setup` mode (VMs prepared, no
# cluster) and this root module hands bmctl an edge-profile standalone cluster config
# instead (templates/edge-cluster.yaml.tpl), then runs the commands the module's setup mode
# prints (its output admin_vm_ssh) on the admin workstation.

locals {
  # Terraform downloads the whole anthos-samples repository into .terraform/modules/<module
  # name>/; the module reads its templates and scripts from, and writes generated files
  # (SSH keys, its cluster YAML) under, this resources directory.
  resources_path = "${path.root}/.terraform/modules/abm/anthos-bm-gcp-terraform/resources"
  # The module's addresses on the VXLAN: format("10.200.0.%d", idx + 2) over [admin
  # workstation, control plane VMs..., workers...] (its main.tf, local.vm_vxlan_ip), so the
  # one control plane VM is 10.200.0.3; its control plane VIP and load balancer pool are the
  # module's too (resources/templates/anthos_gce_cluster.tpl).
  node_vxlan_ip = "10.200.0.3"
  cluster_yaml  = "${local.resources_path}/.temp/${var.abm_cluster_id}-edge.yaml"
  home          = "/home/${var.username}"
  ssh           = "ssh -o 'StrictHostKeyChecking no' -o 'UserKnownHostsFile /dev/null' -o 'IdentitiesOnly yes' -F /dev/null -i ${module.abm.admin_workstation_ssh_key}"
  scp           = "scp -o 'StrictHostKeyChecking no' -o 'UserKnownHostsFile /dev/null' -o 'IdentitiesOnly yes' -F /dev/null -i ${module.abm.admin_workstation_ssh_key}"
  # The module's setup-mode commands (its outputs.tf, admin_vm_ssh), run in the background
  # as its install mode runs install_abm.sh: the hosts' initialization checked, a bmctl
  # workspace made (once: a second `bmctl create config` refuses an existing one), the edge
  # cluster's config put in it, the cluster created.
  create_cluster = join(" && ", [
    "cd ${local.home}",
    "export GOOGLE_APPLICATION_CREDENTIALS=${local.home}/terraform-sa.json",
    "sudo -E ./run_initialization_checks.sh",
    "{ [ -d bmctl-workspace/${var.abm_cluster_id} ] || sudo -E bmctl create config -c ${var.abm_cluster_id}; }",
    "sudo -E cp ${local.home}/${var.abm_cluster_id}.yaml bmctl-workspace/${var.abm_cluster_id}/",
    "sudo -E bmctl create cluster -c ${var.abm_cluster_id}",
    "echo '[+] edge cluster ${var.abm_cluster_id} created: bmctl-workspace/${var.abm_cluster_id}/${var.abm_cluster_id}-kubeconfig'",
  ])
  upload = "${local.scp} ${local.cluster_yaml} ${var.username}@${module.abm.admin_workstation_ip}:${local.home}/${var.abm_cluster_id}.yaml"
  start  = "${local.ssh} ${var.username}@${module.abm.admin_workstation_ip} \"nohup bash -c \\\"${local.create_cluster}\\\" > ${local.home}/install_abm.log 2>&1 &\""
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
  username         = var.username
  # VMs prepared, no cluster: the edge cluster's config is this module's (below).
  mode = "setup"

  # One template for the admin workstation and the node (the module's instance_template);
  # no gpu block, so instance_template_worker has none either (and makes no VM: 0 workers).
  machine_type   = var.machine_type
  boot_disk_size = var.boot_disk_size
  image          = ""
  image_family   = "ubuntu-2204-lts"
  image_project  = "ubuntu-os-cloud"
  # Nested virtualization only serves ABM's VM Runtime, which the edge profile's minimum
  # does not count (node machine prerequisites: "does not account for VM Runtime on GDC").
  enable_nested_virtualization = "false"

  instance_count = {
    "controlplane" : 1
    "worker" : 0
  }

  # No Filestore: the model comes with the server (an init container downloads it).
  nfs_server         = false
  gcp_login_accounts = var.gcp_login_accounts
  # Also output the admin workstation's IP address and SSH key path.
  as_sub_module = true
}

# The edge-profile standalone cluster on the one control plane VM (bmctl's generated config,
# reference/cluster-config, with `type: standalone` and `profile: edge`).
resource "local_file" "edge_cluster" {
  filename        = local.cluster_yaml
  file_permission = "0600"
  content = templatefile("${path.module}/templates/edge-cluster.yaml.tpl", {
    cluster_id   = var.abm_cluster_id
    project_id   = var.project_id
    region       = var.region
    abm_version  = var.abm_version
    node_ip      = local.node_vxlan_ip
    gcp_accounts = var.gcp_login_accounts
  })
}

# Puts the edge cluster's config on the admin workstation where the module put its hybrid
# one (~/<abm_cluster_id>.yaml, which its setup-mode commands copy into the bmctl workspace);
# with mode = "install" also starts bmctl there in the background (30-60 minutes):
# `tail -f ~/install_abm.log`.
resource "null_resource" "edge_cluster_config" {
  depends_on = [module.abm]
  triggers = {
    cluster_yaml = local_file.edge_cluster.content
  }

  provisioner "local-exec" {
    command = var.mode == "install" ? "${local.upload} && ${local.start}" : local.upload
  }
}
