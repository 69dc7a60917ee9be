// submit_and_follow: submit a TFJob from C++ and follow its chief's log until the job ends,
// as `kubectl tfjob submit --follow` does, using the SDK's own building blocks.
//
//   ./submit_and_follow [NAME [NAMESPACE]]     # default: sdk-demo in the context's namespace
//
// Connects like kubectl: $KUBECONFIG, else ~/.kube/config, else the in-cluster config.
// Log lines go to stdout, progress to stderr.
// Exit codes: 0 the job Succeeded; 1 it Failed (the failed pod and exit code are named);
// 2 it ended some other way (deleted while followed); 3 error (cannot connect, invalid job,
// the name is taken by a job with another spec, ...).
#include <tfjob/tfjob.hpp>               // TFJobBuilder, kube::Client, errors
#include <tfjob/workflow/cluster.hpp>    // submit_job: server-side apply, "unchanged" detection
#include <tfjob/workflow/logs.hpp>       // replica_logs: the chief's log, followed to the end

#include <iostream>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "sdk-demo";
  try {
    // 1. Connect. The namespace is the second argument, else the kubeconfig context's.
    tfjob::kube::Client client = tfjob::kube::Client::from_default();
    const std::string ns = argc > 2 ? argv[2] : client.namespace_();

    // 2. Describe the job: one Chief and two Workers running a TensorFlow 2 script.
    //    build() applies the operator's defaults and validates like its admission webhook,
    //    so a bad job is refused here with every problem listed (tfjob::validation_error).
    tfjob::TFJob job = tfjob::TFJobBuilder(name)
                           .namespace_(ns)
                           .image("tensorflow/tensorflow:2.20.0")
                           .command({"python", "-c",
                                     "import json, os; print('TF_CONFIG', json.loads(os.environ['TF_CONFIG'])['task'])"})
                           .chief()
                           .workers(2)
                           .build();

    // 3. Submit with server-side apply. Submitting the same spec again is "unchanged";
    //    a different spec under the same name is refused (SubmitOptions::replace to replace).
    tfjob::workflow::SubmitResult submitted = tfjob::workflow::submit_job(client, ns, nlohmann::json(job));
    std::cerr << "tfjob.kubeflow.org/" << name << " " << tfjob::workflow::to_string(submitted.outcome) << "\n";

    // 4. Follow the chief's log: the pod the operator marks job-role=master (Chief, else
    //    Master, else Worker 0). replica_logs waits through Pending, resumes broken streams,
    //    follows restarted containers and recreated pods, and returns when the job ends.
    tfjob::workflow::JobLogOptions logs;
    logs.follow = true;
    logs.on_note = [](const std::string& note) { std::cerr << note << "\n"; };
    auto print = [](const std::string& /*pod*/, std::string_view line) {
      std::cout << line << std::endl;  // flush each line: it is a live log
      return true;                     // false would stop following
    };
    tfjob::workflow::JobLogResult result =
        tfjob::workflow::replica_logs(client, ns, name, /*replica type: the chief*/ "", 0, logs, print);

    // 5. The job's fate is the exit code.
    if (result.job_state == "Succeeded") {
      std::cerr << "TFJob " << name << " Succeeded\n";
      return 0;
    }
    if (result.job_state == "Failed") {
      tfjob::workflow::explain_failure(client, ns, name, result);  // which pod, which exit code
      std::cerr << "TFJob " << name << " Failed";
      if (!result.failed_pod.empty()) std::cerr << ": pod " << result.failed_pod;
      if (result.failed_exit_code) std::cerr << " exited with code " << *result.failed_exit_code;
      if (!result.job_message.empty()) std::cerr << " (" << result.job_message << ")";
      std::cerr << "\n";
      return 1;
    }
    std::cerr << "TFJob " << name << " ended without finishing"
              << (result.job_state.empty() ? "" : " (" + result.job_state + ")") << "\n";
    return 2;
  } catch (const tfjob::error& e) {
    // config_error, transport_error, auth_error, api_error, validation_error...: each message
    // says what is wrong and what to do.
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
}
