# A standalone cluster with the edge profile on one node, as `bmctl create config` generates
# its file (GDC bare metal reference/cluster-config), filled in by main.tf. The keys are the
# ones the anthos-samples module's init_vm.sh makes on the admin workstation (root's SSH key,
# the baremetal-gcr service account's key).
gcrKeyPath: /root/bm-gcr.json
sshPrivateKeyPath: /root/.ssh/id_rsa
gkeConnectAgentServiceAccountKeyPath: /root/bm-gcr.json
gkeConnectRegisterServiceAccountKeyPath: /root/bm-gcr.json
cloudOperationsServiceAccountKeyPath: /root/bm-gcr.json
---
apiVersion: v1
kind: Namespace
metadata:
  name: cluster-${cluster_id}
---
apiVersion: baremetal.cluster.gke.io/v1
kind: Cluster
metadata:
  name: ${cluster_id}
  namespace: cluster-${cluster_id}
spec:
  # A self-managing cluster that runs workloads; the edge profile (standalone clusters only)
  # cuts the system's own requirements to 2 vCPU and 4 GiB (Ubuntu) per node.
  type: standalone
  profile: edge
  anthosBareMetalVersion: ${abm_version}
  gkeConnect:
    projectID: ${project_id}
  # One control plane node and no node pool: workloads run on it.
  controlPlane:
    nodePoolSpec:
      nodes:
      - address: ${node_ip}
  clusterNetwork:
    pods:
      cidrBlocks:
      - 192.168.0.0/16
    services:
      cidrBlocks:
      - 172.26.232.0/24
  loadBalancer:
    mode: bundled
    ports:
      controlPlaneLBPort: 443
    vips:
      controlPlaneVIP: 10.200.0.49
      ingressVIP: 10.200.0.50
    addressPools:
    - name: pool1
      addresses:
      - 10.200.0.50-10.200.0.70
  clusterOperations:
    projectID: ${project_id}
    location: ${region}
  storage:
    lvpNodeMounts:
      path: /mnt/localpv-disk
      storageClassName: node-disk
    lvpShare:
      path: /mnt/localpv-share
      storageClassName: local-shared
      numPVUnderSharedPath: 5
  # The edge profile's minimum assumes at most 110 pods per node, 30 of them users' on average.
  nodeConfig:
    podDensity:
      maxPodsPerNode: 110
  clusterSecurity:
    authorization:
      clusterAdmin:
        gcpAccounts: ${jsonencode(gcp_accounts)}
