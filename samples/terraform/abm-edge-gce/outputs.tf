output "admin_workstation_ip" {
  description = "External IP address of the admin workstation, where bmctl and the cluster's kubeconfig live"
  value       = module.abm.admin_workstation_ip
}

output "ssh_admin_workstation" {
  description = "Command to reach the admin workstation"
  value       = "gcloud compute ssh ${var.username}@${var.abm_cluster_id}-abm-ws0-001 --project=${var.project_id} --zone=${var.zone}"
}

output "kubeconfig_on_admin_workstation" {
  description = "Where bmctl writes the cluster's admin kubeconfig on the admin workstation"
  value       = "/home/${var.username}/bmctl-workspace/${var.abm_cluster_id}/${var.abm_cluster_id}-kubeconfig"
}

output "edge_cluster_config" {
  description = "The edge cluster's config (type standalone, profile edge), as written here and copied to ~/<abm_cluster_id>.yaml on the admin workstation"
  value       = local_file.edge_cluster.filename
}

output "admin_vm_ssh" {
  description = "mode = setup: the commands that create the cluster from the admin workstation (they copy the edge config)"
  value       = var.mode == "setup" ? module.abm.admin_vm_ssh : null
}

output "installation_check" {
  description = "mode = install: how to follow bmctl's progress"
  value       = var.mode == "install" ? "gcloud compute ssh ${var.username}@${var.abm_cluster_id}-abm-ws0-001 --project=${var.project_id} --zone=${var.zone} --command='tail -f ~/install_abm.log'" : null
}
