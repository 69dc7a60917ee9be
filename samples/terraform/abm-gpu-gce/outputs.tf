output "admin_workstation_ip" {
  description = "External IP address of the admin workstation, where bmctl and the cluster's kubeconfig live"
  value       = module.abm.admin_workstation_ip
}

output "admin_workstation_ssh_key" {
  description = "Local path of the SSH private key for the admin workstation"
  value       = module.abm.admin_workstation_ssh_key
}

output "ssh_admin_workstation" {
  description = "Command to reach the admin workstation"
  value       = "gcloud compute ssh ${var.username}@${var.abm_cluster_id}-abm-ws0-001 --project=${var.project_id} --zone=${var.zone}"
}

output "kubeconfig_on_admin_workstation" {
  description = "Where bmctl writes the cluster's admin kubeconfig on the admin workstation"
  value       = "/home/${var.username}/bmctl-workspace/${var.abm_cluster_id}/${var.abm_cluster_id}-kubeconfig"
}

output "installation_check" {
  description = "mode = install: how to follow bmctl's progress"
  value       = module.abm.installation_check
}

output "admin_vm_ssh" {
  description = "mode = setup: the commands that create the cluster from the admin workstation"
  value       = module.abm.admin_vm_ssh
}
