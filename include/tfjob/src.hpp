#pragma once
/// \file The SDK's bodies, for programs built with `TFJOB_SDK_COMPILED` (see
/// <tfjob/detail/compiled.hpp>): include this file in exactly one source file of the program,
/// before any other SDK header, as Boost.Asio's <boost/asio/impl/src.hpp>:
///
///     // tfjob_sdk.cpp, compiled with -DTFJOB_SDK_COMPILED like the rest of the program
///     #include <tfjob/src.hpp>
///
/// Defining one or more `TFJOB_SDK_IMPL_<AREA>` first compiles only those areas' bodies, so
/// that a build can spread them over several files (the project's src/ does, one per area).
/// A header-only program (the default) needs neither this file nor a library.

#if !defined(TFJOB_SDK_COMPILED)
#error "<tfjob/src.hpp> compiles the SDK for TFJOB_SDK_COMPILED programs: define TFJOB_SDK_COMPILED for every file of the program, or drop this file (header-only needs none)"
#endif
#if defined(TFJOB_INLINE)
#error "<tfjob/src.hpp> must come before any other SDK header in its file"
#endif
#if !defined(TFJOB_SDK_IMPL_CORE) && !defined(TFJOB_SDK_IMPL_API) && !defined(TFJOB_SDK_IMPL_KUBE) && \
    !defined(TFJOB_SDK_IMPL_GPU) && !defined(TFJOB_SDK_IMPL_LOCAL) && !defined(TFJOB_SDK_IMPL_SERVING) && \
    !defined(TFJOB_SDK_IMPL_WORKFLOW)
#define TFJOB_SDK_IMPL_ALL
#endif
#include <tfjob/detail/compiled.hpp>

// Every header of the SDK (a unit test holds this list equal to include/tfjob/).
#include <tfjob/api/builder.hpp>
#include <tfjob/api/cluster_words.hpp>
#include <tfjob/api/defaults.hpp>
#include <tfjob/api/detail/tfjob_crd_schema.hpp>
#include <tfjob/api/findings.hpp>
#include <tfjob/api/k8s/affinity.hpp>
#include <tfjob/api/k8s/autoscaling.hpp>
#include <tfjob/api/k8s/condition.hpp>
#include <tfjob/api/k8s/event.hpp>
#include <tfjob/api/k8s/gang.hpp>
#include <tfjob/api/k8s/kserve.hpp>
#include <tfjob/api/k8s/kueue.hpp>
#include <tfjob/api/k8s/node.hpp>
#include <tfjob/api/k8s/objects.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/k8s/workloads.hpp>
#include <tfjob/api/labels.hpp>
#include <tfjob/api/lint.hpp>
#include <tfjob/api/manifest.hpp>
#include <tfjob/api/manifest_stream.hpp>
#include <tfjob/api/meta.hpp>
#include <tfjob/api/operator_rules.hpp>
#include <tfjob/api/quantity.hpp>
#include <tfjob/api/scheduling.hpp>
#include <tfjob/api/schema.hpp>
#include <tfjob/api/tf_config.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/api/validation.hpp>
#include <tfjob/detail/files.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/detail/order.hpp>
#include <tfjob/detail/suggest.hpp>
#include <tfjob/detail/table.hpp>
#include <tfjob/detail/time.hpp>
#include <tfjob/detail/yaml_reader.hpp>
#include <tfjob/error.hpp>
#include <tfjob/gpu/check.hpp>
#include <tfjob/gpu/check/follow.hpp>
#include <tfjob/gpu/check/inventory.hpp>
#include <tfjob/gpu/check/probe_pod.hpp>
#include <tfjob/gpu/check/result.hpp>
#include <tfjob/gpu/check/run.hpp>
#include <tfjob/gpu/probe_report.hpp>
#include <tfjob/gpu/top.hpp>
#include <tfjob/gpu/verdict.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/config.hpp>
#include <tfjob/kube/config/client_config.hpp>
#include <tfjob/kube/config/kubeconfig.hpp>
#include <tfjob/kube/config/rest_config.hpp>
#include <tfjob/kube/config/validation.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/detail/http.hpp>
#include <tfjob/kube/detail/process.hpp>
#include <tfjob/kube/detail/tls.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/kube/discovery.hpp>
#include <tfjob/kube/exec.hpp>
#include <tfjob/kube/jsonpath.hpp>
#include <tfjob/kube/kube.hpp>
#include <tfjob/kube/line_splitter.hpp>
#include <tfjob/kube/local_proxy.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/pager.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/kube/resource.hpp>
#include <tfjob/kube/response.hpp>
#include <tfjob/kube/side_task.hpp>
#include <tfjob/kube/tfjob_resource.hpp>
#include <tfjob/kube/watch.hpp>
#include <tfjob/kube/watch_event.hpp>
#include <tfjob/kube/watch_state.hpp>
#include <tfjob/local/detail/process.hpp>
#include <tfjob/local/plan.hpp>
#include <tfjob/local/policy.hpp>
#include <tfjob/local/runner.hpp>
#include <tfjob/serving/diagnose.hpp>
#include <tfjob/serving/export_check.hpp>
#include <tfjob/serving/from_job.hpp>
#include <tfjob/serving/image.hpp>
#include <tfjob/serving/imagenet_labels.hpp>
#include <tfjob/serving/kserve.hpp>
#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/metrics.hpp>
#include <tfjob/serving/model_config.hpp>
#include <tfjob/serving/model_config_text.hpp>
#include <tfjob/serving/model_versions.hpp>
#include <tfjob/serving/operations.hpp>
#include <tfjob/serving/predict.hpp>
#include <tfjob/serving/preflight.hpp>
#include <tfjob/serving/profile.hpp>
#include <tfjob/serving/proxy.hpp>
#include <tfjob/serving/resources.hpp>
#include <tfjob/serving/saved_model.hpp>
#include <tfjob/serving/servers.hpp>
#include <tfjob/serving/serving.hpp>
#include <tfjob/serving/signature.hpp>
#include <tfjob/serving/status.hpp>
#include <tfjob/serving/tensorboard.hpp>
#include <tfjob/serving/top_k.hpp>
#include <tfjob/serving/wait.hpp>
#include <tfjob/setting.hpp>
#include <tfjob/version.hpp>
#include <tfjob/workflow/archive.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/cluster/reads.hpp>
#include <tfjob/workflow/cluster/submit.hpp>
#include <tfjob/workflow/cluster/submit_checks.hpp>
#include <tfjob/workflow/control.hpp>
#include <tfjob/workflow/delete.hpp>
#include <tfjob/workflow/describe.hpp>
#include <tfjob/workflow/explain.hpp>
#include <tfjob/workflow/explain_facts.hpp>
#include <tfjob/workflow/explain_pending.hpp>
#include <tfjob/workflow/explain_rules.hpp>
#include <tfjob/workflow/job_watch.hpp>
#include <tfjob/workflow/logs.hpp>
#include <tfjob/workflow/logs/follow.hpp>
#include <tfjob/workflow/logs/merge.hpp>
#include <tfjob/workflow/logs/read.hpp>
#include <tfjob/workflow/logs/record.hpp>
#include <tfjob/workflow/logs/save.hpp>
#include <tfjob/workflow/logs/targets.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/preflight.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/queue_findings.hpp>
#include <tfjob/workflow/queue_wait.hpp>
#include <tfjob/workflow/queues.hpp>
#include <tfjob/workflow/status.hpp>
#include <tfjob/workflow/wait.hpp>
