#pragma once
/// \file Umbrella for the generic Kubernetes client layer.
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/config.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/discovery.hpp>
#include <tfjob/kube/exec.hpp>
#include <tfjob/kube/local_proxy.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/pager.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/kube/resource.hpp>
#include <tfjob/kube/watch.hpp>
