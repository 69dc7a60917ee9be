variable "project_id" {
  description = "Google Cloud project to create the cluster in"
  type        = string
}

variable "credentials_file" {
  description = "Path to the JSON key of the service account Terraform uses (needs Owner or Editor on the project)"
  type        = string
}

variable "region" {
  description = "Region of the VMs; it must have V100 quota (NVIDIA_V100_GPUS)"
  type        = string
  default     = "us-central1"
}

variable "zone" {
  description = "Zone that offers nvidia-tesla-v100: gcloud compute accelerator-types list --filter=name=nvidia-tesla-v100"
  type        = string
  default     = "us-central1-a"

  validation {
    condition     = can(regex("^[a-z]+-[a-z]+[0-9]+-[a-z]$", var.zone))
    error_message = "The zone must look like us-central1-a."
  }
}

variable "abm_cluster_id" {
  description = "Name of the cluster; the VMs are named <id>-abm-ws0, <id>-abm-cp1, <id>-abm-w1, ..."
  type        = string
  default     = "tfjob-gpu"
}

variable "abm_version" {
  description = "Release of GDC (software only) for bare metal that bmctl installs, exactly as bmctl's bucket names it (gcloud storage ls gs://anthos-baremetal-release/bmctl/), e.g. 1.36.300-gke.150; a supported one (1.34 or newer today)"
  type        = string

  validation {
    # x.y.z-gke.N as GDC numbers its patches (version history, "Versioning scheme"), or a
    # bare x.y.z; the module downloads gs://anthos-baremetal-release/bmctl/<abm_version>/.
    condition     = can(regex("^1\\.[0-9]+\\.[0-9]+(-gke\\.[0-9]+)?$", var.abm_version))
    error_message = "abm_version must be a bmctl release such as 1.36.300-gke.150 (see gcloud storage ls gs://anthos-baremetal-release/bmctl/)."
  }
}

variable "mode" {
  description = "setup: make and prepare the VMs, you run bmctl; install: also create the cluster with bmctl"
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

variable "machine_type" {
  description = "Machine type of every VM: an N1 type (V100 attaches to N1 only); with 1 V100 at most 12 vCPUs, 2: 24, 4: 48, 8: 96"
  type        = string
  default     = "n1-standard-8"

  validation {
    condition     = can(regex("^n1-", var.machine_type))
    error_message = "NVIDIA V100 GPUs attach only to N1 machine types (n1-standard-*, n1-highmem-*, n1-highcpu-*)."
  }
}

variable "boot_disk_size" {
  description = "Boot disk of each VM in GB (container images of TensorFlow GPU are large)"
  type        = number
  default     = 200
}

variable "gpus_per_worker" {
  description = "V100 GPUs attached to each worker VM (1, 2, 4 or 8)"
  type        = number
  default     = 1

  validation {
    condition     = contains([1, 2, 4, 8], var.gpus_per_worker)
    error_message = "A VM takes 1, 2, 4 or 8 V100 GPUs."
  }
}

variable "controlplane_count" {
  description = "Control plane VMs (1 to save cost, 3 for high availability)"
  type        = number
  default     = 1

  validation {
    condition     = contains([1, 3, 5], var.controlplane_count)
    error_message = "Use an odd number of control plane nodes: 1, 3 or 5."
  }
}

variable "worker_count" {
  description = "Worker VMs, each with gpus_per_worker V100s (the MNIST sample runs 3 GPU pods: Chief + 2 Workers)"
  type        = number
  default     = 3
}

variable "nfs_server" {
  description = "Create a Filestore instance and the nfs-csi (ReadWriteMany) storage class"
  type        = bool
  default     = true
}

variable "gcp_login_accounts" {
  description = "Google accounts made cluster admins (Connect gateway and Cloud console login)"
  type        = list(string)
  default     = []
}
