# Same bounds as the pinned anthos-bm-gcp-terraform module, which configures the google
# providers itself (from var.credentials_file), so this root module has no provider block.
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
  }
}
