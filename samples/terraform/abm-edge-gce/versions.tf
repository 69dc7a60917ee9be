# The pinned anthos-bm-gcp-terraform module's bounds (see ../abm-gpu-gce/versions.tf); it
# configures the google providers itself from var.credentials_file, so this root module has
# no provider block. `local` and `null` write and hand over the edge cluster's config.
terraform {
  required_version = ">= 1.0, < 1.13"
  required_providers {
    google = {
      source  = "hashicorp/google"
      version = ">= 3.68.0"
    }
    google-beta = {
      source  = "hashicorp/google-beta"
      version = ">= 3.68.0"
    }
    local = {
      source  = "hashicorp/local"
      version = ">= 2.0.0"
    }
    null = {
      source  = "hashicorp/null"
      version = ">= 3.0.0"
    }
  }
}
