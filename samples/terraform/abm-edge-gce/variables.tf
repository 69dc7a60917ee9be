variable "project_id" {
  description = "Google Cloud project to create the cluster in"
  type        = string
}

variable "credentials_file" {
  description = "Path to the JSON key of the service account Terraform uses (needs Owner, or Editor and Project IAM Admin, on the project)"
  type        = string
}

variable "region" {
  description = "Region of the VMs (and of the cluster's logs and metrics)"
  type        = string
  default     = "us-central1"
}

variable "zone" {
  description = "Zone of the VMs"
  type        = string
  default     = "us-central1-a"

  validation {
    condition     = can(regex("^[a-z]+-[a-z]+[0-9]+-[a-z]$", var.zone))
    error_message = "The zone must look like us-central1-a."
  }
}

variable "abm_cluster_id" {
  description = "Name of the cluster; the VMs are named <id>-abm-ws0 (admin workstation) and <id>-abm-cp1 (the node)"
  type        = string
  default     = "tfjob-edge"
}

variable "abm_version" {
  description = "Version of GDC software-only for bare metal that bmctl installs, exactly as listed by: gcloud storage ls gs://anthos-baremetal-release/bmctl/"
  type        = string

  validation {
    condition     = can(regex("^1\\.[0-9]+\\.[0-9]+", var.abm_version))
    error_message = "abm_version must be a bmctl version such as 1.36.300-gke.150 (see gcloud storage ls gs://anthos-baremetal-release/bmctl/)."
  }
}

variable "mode" {
  description = "setup: make and prepare the VMs and put the edge cluster's config on the admin workstation, you run bmctl; install: also create the cluster with bmctl"
  type        = string
  default     = "install"

  validation {
    condition     = contains(["setup", "install"], var.mode)
    error_message = "mode must be setup or install."
  }
}

variable "username" {
  description = "User created on every VM; bmctl runs as this user on the admin workstation"
  type        = string
  default     = "tfadmin"
}

# The edge profile's node minimum is 2 vCPUs and 4 GiB of memory (Ubuntu), 4 vCPUs and 8 GiB
# recommended (GDC bare metal, node machine prerequisites). N1 only: the module asks for
# min_cpu_platform "Intel Haswell" (x86-64-v3, which GDC needs), which E2 does not take.
variable "machine_type" {
  description = "Machine type of both VMs, an N1 type with at least 2 vCPUs and 4 GiB: n1-standard-2 (2 vCPUs, 7.5 GB), custom-4-8192 (the edge profile's recommended 4 vCPUs, 8 GiB)"
  type        = string
  default     = "n1-standard-2"

  validation {
    condition = can(regex("^(n1-(standard|highmem)-([2-9]|[1-9][0-9]+)|n1-highcpu-([89]|[1-9][0-9]+)|custom-([2-9]|[1-9][0-9]+)-[0-9]+)$", var.machine_type)) && (
      substr(var.machine_type, 0, 7) != "custom-" || try(tonumber(split("-", var.machine_type)[2]) >= 4096, false)
    )
    error_message = "The edge profile needs at least 2 vCPUs and 4 GiB on an N1 machine: n1-standard-2 or larger, n1-highmem-2 or larger, n1-highcpu-8 or larger, or custom-CPUS-MIB with CPUS >= 2 and MIB >= 4096 (e.g. custom-4-8192)."
  }
}

variable "boot_disk_size" {
  description = "Boot disk of each VM in GB (the edge profile's minimum storage is 128 GiB)"
  type        = number
  default     = 128

  validation {
    condition     = var.boot_disk_size >= 128
    error_message = "The edge profile needs at least 128 GiB of storage per node."
  }
}

variable "gcp_login_accounts" {
  description = "Google accounts made cluster admins (Connect gateway and Cloud console login)"
  type        = list(string)
  default     = []
}
