#pragma once
/// \file Loading connection settings the way kubectl does: kubeconfig files merged by
/// client-go's `clientcmd` rules (tools/clientcmd/loader.go), kubectl's flag overrides
/// (cli-runtime config_flags.go, clientcmd/client_config.go), and the in-cluster fallback
/// (rest.InClusterConfig). Loading config is separate from using it (`Client`).
///
/// One header per concern, as client-go splits it, each included here:
/// - config/kubeconfig.hpp     the kubeconfig model, parsing, loading and merging (loader.go)
/// - config/rest_config.hpp    RestConfig, kubectl's flags, the in-cluster config (rest.Config)
/// - config/validation.hpp     clientcmd validation.go's rules
/// - config/client_config.hpp  a RestConfig from a context and the flags (client_config.go)

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/yaml_reader.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/detail/tls.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/version.hpp>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <tfjob/kube/config/client_config.hpp>
#include <tfjob/kube/config/kubeconfig.hpp>
#include <tfjob/kube/config/rest_config.hpp>
#include <tfjob/kube/config/validation.hpp>
