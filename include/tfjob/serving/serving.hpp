#pragma once
/// \file TF Serving on a cluster, as one include: apply the Deployment and Service
/// (server-side apply, resources.hpp), wait for the rollout as `kubectl rollout status` does
/// (plus crash-looping pods, with their events and last logs: wait.hpp, diagnose.hpp), wait
/// until TF Serving reports a model version AVAILABLE, and send predictions (predict.hpp) —
/// all through the API server (the service proxy reaches TF Serving's REST port, so no
/// port-forward is needed: proxy.hpp), checked first against the model's signatures; list,
/// delete and report on the servers serve made (servers.hpp).

#include <tfjob/serving/diagnose.hpp>
#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/metrics.hpp>
#include <tfjob/serving/model_config.hpp>
#include <tfjob/serving/predict.hpp>
#include <tfjob/serving/proxy.hpp>
#include <tfjob/serving/resources.hpp>
#include <tfjob/serving/servers.hpp>
#include <tfjob/serving/signature.hpp>
#include <tfjob/serving/status.hpp>
#include <tfjob/serving/wait.hpp>
