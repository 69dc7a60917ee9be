#pragma once
/// \file Umbrella header: the whole SDK. Each area adds its public headers here.

#include <tfjob/error.hpp>
#include <tfjob/setting.hpp>
#include <tfjob/version.hpp>

// api/: pure TFJob model (no I/O)
#include <tfjob/api/types.hpp>
#include <tfjob/api/manifest.hpp>
#include <tfjob/api/manifest_stream.hpp>
#include <tfjob/api/schema.hpp>
#include <tfjob/api/defaults.hpp>
#include <tfjob/api/validation.hpp>
#include <tfjob/api/quantity.hpp>
#include <tfjob/api/labels.hpp>
#include <tfjob/api/tf_config.hpp>
#include <tfjob/api/builder.hpp>
#include <tfjob/api/findings.hpp>
#include <tfjob/api/operator_rules.hpp>
#include <tfjob/api/scheduling.hpp>
#include <tfjob/api/cluster_words.hpp>
#include <tfjob/api/lint.hpp>

// kube/: generic Kubernetes client
#include <tfjob/kube/resource.hpp>
#include <tfjob/kube/tfjob_resource.hpp>
#include <tfjob/kube/kube.hpp>

// gpu/: probe report, verdict rules, gpu-check and top workflows
#include <tfjob/gpu/probe_report.hpp>
#include <tfjob/gpu/verdict.hpp>
#include <tfjob/gpu/check.hpp>
#include <tfjob/gpu/top.hpp>

// local/: run a TFJob as processes on this machine
#include <tfjob/local/runner.hpp>

// serving/: TF Serving objects, the proxy to them, waits, predictions, servers (serving.hpp
// includes resources, proxy, diagnose, wait, predict and servers)
#include <tfjob/serving/serving.hpp>
#include <tfjob/serving/preflight.hpp>
#include <tfjob/serving/profile.hpp>
#include <tfjob/serving/image.hpp>
#include <tfjob/serving/tensorboard.hpp>
#include <tfjob/serving/model_config.hpp>
#include <tfjob/serving/model_config_text.hpp>
#include <tfjob/serving/model_versions.hpp>
#include <tfjob/serving/export_check.hpp>
#include <tfjob/serving/saved_model.hpp>
#include <tfjob/serving/kserve.hpp>
#include <tfjob/serving/top_k.hpp>

// workflow/: the training workflow against a cluster (status, pods, preflight, submit,
// progress, wait, logs, describe)
#include <tfjob/workflow/status.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/preflight.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/wait.hpp>
#include <tfjob/workflow/logs.hpp>
#include <tfjob/workflow/explain_facts.hpp>
#include <tfjob/workflow/explain_rules.hpp>
#include <tfjob/workflow/explain_pending.hpp>
#include <tfjob/workflow/explain.hpp>
#include <tfjob/workflow/describe.hpp>
#include <tfjob/workflow/control.hpp>
#include <tfjob/workflow/delete.hpp>
#include <tfjob/workflow/queue_findings.hpp>
#include <tfjob/workflow/queue_wait.hpp>
#include <tfjob/workflow/queues.hpp>
