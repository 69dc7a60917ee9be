// The fluent builder: every setting lands where the operator and the API server expect it,
// the result is defaulted and valid, and bad values are refused with a clear message.
#include <catch2/catch.hpp>

#include <tfjob/tfjob.hpp>

using nlohmann::json;

TEST_CASE("builder: a full job from settings", "[api][builder]") {
  auto job = tfjob::TFJobBuilder("resnet")
                 .namespace_("team-a")
                 .label("team", "vision")
                 .image("tensorflow/tensorflow:2.15.0-gpu")
                 .command({"python", "/data/train.py"})
                 .args({"--epochs=3"})
                 .chief()
                 .workers(3)
                 .ps(2)
                 .evaluator()
                 .gpus(2)
                 .cpu("4")
                 .memory("16Gi")
                 .env("EPOCHS=10")
                 .env("MODE", "train")
                 .pvc("data:/data")
                 .pvc("models:/models:ro")
                 .node_selector("cloud.google.com/gke-accelerator=nvidia-tesla-v100")
                 .toleration("nvidia.com/gpu=present:NoSchedule")
                 .toleration("dedicated")
                 .restart_policy("OnFailure")
                 .clean_pod_policy("All")
                 .ttl_seconds_after_finished(3600)
                 .active_deadline_seconds(7200)
                 .backoff_limit(2)
                 .success_policy("AllWorkers")
                 .queue("research")
                 .build();

  CHECK(job.metadata.name == "resnet");
  CHECK(job.metadata.namespace_ == "team-a");
  CHECK(job.metadata.labels.at("team") == "vision");
  CHECK(job.spec.tf_replica_specs.size() == 4);
  CHECK(job.spec.tf_replica_specs.at("Chief").replicas == 1);
  CHECK(job.spec.tf_replica_specs.at("Worker").replicas == 3);
  CHECK(job.spec.tf_replica_specs.at("PS").replicas == 2);
  CHECK(job.spec.tf_replica_specs.at("Evaluator").replicas == 1);
  CHECK(job.spec.tf_replica_specs.at("Worker").restart_policy == "OnFailure");
  CHECK(job.spec.run_policy.clean_pod_policy == std::optional<std::string>("All"));
  CHECK(job.spec.run_policy.ttl_seconds_after_finished == 3600);
  CHECK(job.spec.run_policy.active_deadline_seconds == 7200);
  CHECK(job.spec.run_policy.backoff_limit == 2);
  CHECK(job.spec.success_policy == std::optional<std::string>("AllWorkers"));
  CHECK(job.spec.run_policy.scheduling_policy->queue == "research");
  CHECK(tfjob::validate(job).empty());

  const auto& w = job.spec.tf_replica_specs.at("Worker");
  const json& c = *tfjob::tensorflow_container(w);
  CHECK(c["image"] == "tensorflow/tensorflow:2.15.0-gpu");
  CHECK(c["command"] == json({"python", "/data/train.py"}));
  CHECK(c["args"] == json({"--epochs=3"}));
  CHECK(c["env"] == json::parse(R"([{"name":"EPOCHS","value":"10"},{"name":"MODE","value":"train"}])"));
  CHECK(c["resources"]["limits"] == json::parse(R"({"cpu":"4","memory":"16Gi","nvidia.com/gpu":"2"})"));
  CHECK(c["resources"]["requests"] == json::parse(R"({"cpu":"4","memory":"16Gi"})"));
  CHECK(c["ports"] == json::parse(R"([{"name":"tfjob-port","containerPort":2222}])"));  // defaulted
  CHECK(c["volumeMounts"] ==
        json::parse(R"([{"name":"data","mountPath":"/data"},{"name":"models","mountPath":"/models","readOnly":true}])"));
  const json& spec = w.template_["spec"];
  CHECK(spec["volumes"] == json::parse(R"([{"name":"data","persistentVolumeClaim":{"claimName":"data"}},
                                            {"name":"models","persistentVolumeClaim":{"claimName":"models","readOnly":true}}])"));
  CHECK(spec["nodeSelector"] == json::parse(R"({"cloud.google.com/gke-accelerator":"nvidia-tesla-v100"})"));
  CHECK(spec["tolerations"] == json::parse(R"([{"key":"nvidia.com/gpu","operator":"Equal","value":"present","effect":"NoSchedule"},
                                                {"key":"dedicated","operator":"Exists"}])"));
  // GPUs go to training replicas, not to parameter servers
  CHECK_FALSE(tfjob::tensorflow_container(job.spec.tf_replica_specs.at("PS"))->at("resources")["limits"].contains("nvidia.com/gpu"));
  CHECK((*tfjob::tensorflow_container(job.spec.tf_replica_specs.at("Evaluator")))["resources"]["limits"]["nvidia.com/gpu"] == "2");

  // the TF_CONFIG of such a job lists every type
  auto cfg = tfjob::parse_tf_config(tfjob::gen_tf_config(job, "worker", 2).value());
  CHECK(cfg.count("chief") == 1);
  CHECK(cfg.count("ps") == 2);
  CHECK(cfg.count("evaluator") == 1);
}

TEST_CASE("builder: defaults and per-type settings", "[api][builder]") {
  SECTION("one worker when no replica is given; gpus(0) is CPU only") {
    auto job = tfjob::TFJobBuilder("one").image("img").gpus(0).build();
    REQUIRE(job.spec.tf_replica_specs.size() == 1);
    CHECK(job.spec.tf_replica_specs.at("Worker").replicas == 1);
    CHECK(job.spec.tf_replica_specs.at("Worker").restart_policy == "Never");
    CHECK_FALSE(tfjob::tensorflow_container(job.spec.tf_replica_specs.at("Worker"))->contains("resources"));
    CHECK_FALSE(tfjob::gen_tf_config(job, "worker", 0));  // a single replica gets no TF_CONFIG
  }
  SECTION("per-type image, args, gpus, restart policy and a whole template") {
    json tmpl = json::parse(R"({"metadata":{"labels":{"x":"y"}},"spec":{"containers":[{"name":"sidecar","image":"busybox"}],
                               "priorityClassName":"low"}})");
    auto job = tfjob::TFJobBuilder("mixed")
                   .image("img:train")
                   .image("PS", "img:ps")
                   .args("ps", {"--ps"})
                   .gpus("Ps", 1)
                   .restart_policy("Worker", "ExitCode")
                   .template_("Evaluator", tmpl)
                   .workers(1)
                   .ps(1)
                   .evaluator()
                   .build();
    const auto& ps = *tfjob::tensorflow_container(job.spec.tf_replica_specs.at("PS"));
    CHECK(ps["image"] == "img:ps");
    CHECK(ps["args"] == json({"--ps"}));
    CHECK(ps["resources"]["limits"]["nvidia.com/gpu"] == "1");
    CHECK(job.spec.tf_replica_specs.at("Worker").restart_policy == "ExitCode");
    CHECK(job.spec.tf_replica_specs.at("PS").restart_policy == "Never");
    const auto& ev = job.spec.tf_replica_specs.at("Evaluator").template_;
    CHECK(ev["metadata"]["labels"]["x"] == "y");
    CHECK(ev["spec"]["priorityClassName"] == "low");
    REQUIRE(ev["spec"]["containers"].size() == 2);
    CHECK(ev["spec"]["containers"][1]["name"] == "tensorflow");
    CHECK(ev["spec"]["containers"][1]["image"] == "img:train");
  }
  SECTION("workers(0) removes the type; replicas() takes any case") {
    auto b = tfjob::TFJobBuilder("x").image("i").chief().workers(2);
    b.workers(0).replicas("ps", 2);
    CHECK(b.replicas_of("Worker") == 0);
    CHECK(b.replicas_of("PS") == 2);
    auto job = b.build();
    CHECK(job.spec.tf_replica_specs.count("Worker") == 0);
    CHECK(job.spec.tf_replica_specs.count("PS") == 1);
  }
  SECTION("dynamic worker, suspend, scheduling") {
    auto job = tfjob::TFJobBuilder("dyn").image("i").workers(2).ps(1).enable_dynamic_worker().suspend().min_available(3).build();
    CHECK(job.spec.enable_dynamic_worker);
    CHECK(job.spec.run_policy.suspend == true);
    CHECK(job.spec.run_policy.scheduling_policy->min_available == 3);
    CHECK(tfjob::gen_tf_config(job, "worker", 0).value().find(R"("worker":{"0":)") != std::string::npos);
  }
}

TEST_CASE("builder: bad input is refused clearly", "[api][builder]") {
  CHECK_THROWS_WITH(tfjob::TFJobBuilder().cpu("four"), Catch::Contains("\"four\" is not a Kubernetes quantity"));
  CHECK_THROWS_WITH(tfjob::TFJobBuilder().pvc("data"), Catch::Contains("\"data\": it has no mount path; give CLAIM:/mount/path"));
  CHECK_THROWS_WITH(tfjob::TFJobBuilder().pvc("data:relative"), Catch::Contains("the mount path \"relative\" is not absolute"));
  // nothing truncated or dropped: a mode other than :ro, two mounts in one, a bad claim name
  CHECK_THROWS_WITH(tfjob::TFJobBuilder().pvc("data:/data:rw"), Catch::Contains("\":rw\" is not a mode (only :ro is)"));
  CHECK_THROWS_WITH(tfjob::TFJobBuilder().pvc("a:/a,b:/b"), Catch::Contains("it holds more than one mount"));
  CHECK_THROWS_WITH(tfjob::TFJobBuilder().pvc("Data:/data"), Catch::Contains("the claim name \"Data\" is not a valid name"));
  auto ro = tfjob::PvcMount::parse("ckpt:/ckpt:ro");
  CHECK((ro.claim == "ckpt" && ro.mount_path == "/ckpt" && ro.read_only));
  CHECK_THROWS_WITH(tfjob::TFJobBuilder().env("NOVALUE"), Catch::Contains("expected NAME=VALUE"));
  CHECK_THROWS_WITH(tfjob::TFJobBuilder().toleration("k:Sometimes"), Catch::Contains("the effect \"Sometimes\" is none of"));
  CHECK_THROWS_WITH(tfjob::TFJobBuilder().toleration("bad key!"), Catch::Contains("the key \"bad key!\""));
  CHECK_THROWS_WITH(tfjob::TFJobBuilder().replicas("Driver", 1), Catch::Contains("unknown replica type \"Driver\""));
  try {
    tfjob::TFJobBuilder("Bad_Name").chief().master().build();
    FAIL("no error");
  } catch (const tfjob::validation_error& e) {
    // every problem at once: the name, the missing images, Chief + Master
    CHECK(e.errors().size() == 4);
    CHECK_THAT(e.what(), Catch::Contains("metadata.name: Invalid value: \"Bad_Name\"") &&
                             Catch::Contains("spec.tfReplicaSpecs[Chief].template.spec.containers[0].image: Required value") &&
                             Catch::Contains("spec.tfReplicaSpecs[Master].template.spec.containers[0].image: Required value") &&
                             Catch::Contains("spec.tfReplicaSpecs: Forbidden: must not have more than 1 Chief or Master role"));
  }
  // build_unchecked() leaves defaults and validation to the caller
  auto raw = tfjob::TFJobBuilder("raw").build_unchecked();
  CHECK_FALSE(raw.spec.run_policy.clean_pod_policy);
  CHECK_FALSE(tfjob::validate(raw).empty());
}
