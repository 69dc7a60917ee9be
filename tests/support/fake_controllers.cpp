// Controllers of the fake API server (training operator, kubelet, deployment controller).
#include "support/fake_server_impl.hpp"

namespace tfjob::test {
void FakeApiServer::Impl::reconcile_tfjobs_locked() {}
void FakeApiServer::Impl::reconcile_deployments_locked() {}
void FakeApiServer::Impl::reconcile_pods_locked() {}
void FakeApiServer::Impl::reconcile_jobs_locked() {}
}  // namespace tfjob::test
