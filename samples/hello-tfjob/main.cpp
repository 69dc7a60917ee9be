// hello-tfjob: a distributed MNIST trainer that learns its place in the cluster from
// TF_CONFIG, exactly as TensorFlow code in a TFJob does.
//
// The chief and the workers train softmax regression with synchronous data-parallel SGD:
// each step every replica computes the gradient of its shard of the global batch and the
// gradients are summed with a ring all-reduce over TCP between the TF_CONFIG addresses, so
// every replica applies the same update and holds the same model. When a replica dies and
// is restarted (restartPolicy OnFailure/ExitCode/Always), the others notice, the ring is
// formed again and the replica with the most progress hands its state to the others.
//
// Parameter servers are not used: a cluster with `ps` replicas is rejected with a message
// (this trainer is the all-reduce kind, like MultiWorkerMirroredStrategy).
#include "idx.hpp"
#include "ring.hpp"
#include "softmax.hpp"
#include "synthetic.hpp"

#include <tfjob/api/tf_config.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kDebianFashionMnist = "/usr/share/datasets/fashion-mnist";

struct Options {
  std::string data_dir;
  std::string output_dir;
  int epochs = 5;
  int batch_size = 32;  // per replica
  double learning_rate = 0.1;
  unsigned seed = 42;
  int train_limit = 0;
  int test_limit = 0;
  double connect_timeout = 60;
  double peer_timeout = 60;
  int step_delay_ms = 0;
  int max_recoveries = 20;
};

struct Role {
  std::vector<hello::Peer> peers;  // chief/master first, then workers: the ring order
  int rank = 0;
  std::string name = "chief:0";
  bool chief = true;
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "hello-tfjob: error: %s\n", msg.c_str());
  std::fflush(stdout);
  std::exit(1);
}

double secs(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

/// Role and ring from TF_CONFIG; std::nullopt for an evaluator (nothing to do).
std::optional<Role> role_from_tf_config() {
  std::optional<tfjob::TFConfig> cfg;
  try {
    cfg = tfjob::tf_config_from_env();
  } catch (const std::exception& e) {
    die(std::string("TF_CONFIG is not valid: ") + e.what());
  }
  Role role;
  if (!cfg) {
    role.peers.push_back({"chief:0", "127.0.0.1", "0"});
    std::printf("no TF_CONFIG: training alone\n");
    return role;
  }
  if (cfg->cluster.count("ps") && !cfg->cluster.at("ps").empty())
    die("the cluster has " + std::to_string(cfg->cluster.at("ps").size()) +
        " parameter server(s) (ps); hello-tfjob averages gradients with a ring all-reduce between "
        "the chief and the workers and uses no parameter servers: remove the PS replicas from the TFJob");
  if (cfg->task_type == "evaluator") {
    std::printf("evaluator: hello-tfjob evaluates on the chief; nothing to do here\n");
    return std::nullopt;
  }
  for (const char* type : {"chief", "master", "worker"}) {
    auto it = cfg->cluster.find(type);
    if (it == cfg->cluster.end()) continue;
    for (size_t i = 0; i < it->second.size(); ++i) {
      std::string name = std::string(type) + ":" + std::to_string(i);
      try {
        role.peers.push_back(hello::split_address(name, it->second[i]));
      } catch (const std::exception& e) {
        die(e.what());
      }
      if (cfg->task_type == type && int(i) == cfg->task_index) role.rank = int(role.peers.size()) - 1, role.name = name;
    }
  }
  if (role.peers.empty()) die("TF_CONFIG has no chief, master or worker in its cluster");
  auto it = cfg->cluster.find(cfg->task_type);
  if (it == cfg->cluster.end() || cfg->task_index < 0 || size_t(cfg->task_index) >= it->second.size())
    die("TF_CONFIG task " + cfg->task_type + ":" + std::to_string(cfg->task_index) +
        " is not in its cluster; the operator (or kubectl tfjob submit --local) sets both");
  // The chief (or master) is rank 0; with neither, worker 0 plays chief, as the operator's
  // success policy does.
  role.chief = role.rank == 0;
  return role;
}

hello::Dataset load_split(const std::string& dir, const std::string& prefix, int limit) {
  return hello::load_idx_pair(hello::find_idx(dir, prefix + "-images-idx3-ubyte"),
                              hello::find_idx(dir, prefix + "-labels-idx1-ubyte"), limit);
}

bool has_idx(const std::string& dir) {
  return !dir.empty() && !hello::find_idx(dir, "train-images-idx3-ubyte").empty() &&
         !hello::find_idx(dir, "train-labels-idx1-ubyte").empty() &&
         !hello::find_idx(dir, "t10k-images-idx3-ubyte").empty() &&
         !hello::find_idx(dir, "t10k-labels-idx1-ubyte").empty();
}

/// The data directory: --data-dir when it holds the four IDX files, else Debian's
/// Fashion-MNIST (package dataset-fashion-mnist); "" when neither has them: then the
/// generated set (synthetic.hpp), so that the trainer a release archive carries runs on
/// any machine. --data-dir=synthetic asks for that set.
std::string pick_data_dir(const Options& o, bool verbose) {
  if (o.data_dir == "synthetic") return "";
  if (has_idx(o.data_dir)) return o.data_dir;
  if (has_idx(kDebianFashionMnist)) {
    if (verbose && !o.data_dir.empty())
      std::printf("no MNIST IDX files in %s; using Fashion-MNIST from %s\n", o.data_dir.c_str(), kDebianFashionMnist);
    return kDebianFashionMnist;
  }
  if (verbose)
    std::printf("no MNIST-format data (train-images-idx3-ubyte[.gz], ... in %s, or Debian's dataset-fashion-mnist in %s): "
                "training on a generated 10-class set instead\n",
                o.data_dir.empty() ? "--data-dir" : o.data_dir.c_str(), kDebianFashionMnist);
  return "";
}

void mkdirs(const std::string& dir) {
  std::string cur;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || (dir[i] == '/' && i > 0)) {
      cur = dir.substr(0, i);
      if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) die("cannot create " + cur + ": " + hello::errno_text());
    }
  }
}

void write_file(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) die("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) die("cannot rename " + tmp + " to " + path);
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a pipe to the runner or kubelet: line by line
  const auto t_start = Clock::now();
  Options o;
  CLI::App app{"hello-tfjob: distributed softmax regression on MNIST-format data, wired by TF_CONFIG"};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a later --epochs wins
  app.add_option("--data-dir", o.data_dir, "Directory with the MNIST IDX files (gzipped or not); "
                 "falls back to " + std::string(kDebianFashionMnist) + ", then to a generated 10-class set (also: synthetic)");
  app.add_option("--output-dir,--model-dir", o.output_dir, "Where the chief writes model.json and metrics.json");
  app.add_option("--epochs", o.epochs, "Passes over the training set")->check(CLI::Range(1, 1000));
  app.add_option("--batch-size", o.batch_size, "Examples per replica per step")->check(CLI::Range(1, 100000));
  app.add_option("--learning-rate,--lr", o.learning_rate, "SGD step size")->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "Shuffling seed (the same on every replica)");
  app.add_option("--train-limit", o.train_limit, "Use only the first N training examples (0 = all)")->check(CLI::NonNegativeNumber);
  app.add_option("--test-limit", o.test_limit, "Use only the first N test examples (0 = all)")->check(CLI::NonNegativeNumber);
  app.add_option("--connect-timeout", o.connect_timeout, "Seconds to wait for the other replicas to come up")->check(CLI::PositiveNumber);
  app.add_option("--peer-timeout", o.peer_timeout, "Seconds without progress before a peer counts as lost")->check(CLI::PositiveNumber);
  app.add_option("--step-delay-ms", o.step_delay_ms, "Sleep after each step (to watch or test recovery)")->check(CLI::NonNegativeNumber);
  app.add_option("--max-recoveries", o.max_recoveries, "How many times the ring may be formed again after a peer is lost");
  CLI11_PARSE(app, argc, argv);

  auto role_opt = role_from_tf_config();
  if (!role_opt) return 0;
  Role role = *role_opt;
  const int size = int(role.peers.size());
  auto ms = [](double s) { return std::chrono::milliseconds(static_cast<long long>(s * 1000)); };
  hello::Ring ring(role.peers, role.rank, ms(o.connect_timeout), ms(o.peer_timeout));
  try {
    ring.listen();  // first, so a wrong own address fails before anything else
  } catch (const std::exception& e) {
    die(e.what());
  }
  std::printf("%s: rank %d of %d%s, pid %d\n", role.name.c_str(), role.rank, size, role.chief ? " (chief)" : "",
              int(::getpid()));

  std::string data_dir = pick_data_dir(o, role.chief);
  hello::Dataset train, test;
  try {
    if (data_dir.empty()) {
      auto limit = [](int l, int n) { return l > 0 && l < n ? l : n; };
      train = hello::synthetic_split(0, limit(o.train_limit, hello::kSyntheticTrain));
      if (role.chief) test = hello::synthetic_split(1, limit(o.test_limit, hello::kSyntheticTest));
    } else {
      train = load_split(data_dir, "train", o.train_limit);
      if (role.chief) test = load_split(data_dir, "t10k", o.test_limit);
    }
  } catch (const std::exception& e) {
    die(e.what());
  }
  const int global_batch = o.batch_size * size;
  const long steps_per_epoch = train.n / global_batch;
  if (steps_per_epoch == 0)
    die("the training set (" + std::to_string(train.n) + " examples) is smaller than one global batch (" +
        std::to_string(size) + " replicas x " + std::to_string(o.batch_size) + ")");
  const long total_steps = steps_per_epoch * o.epochs;
  if (role.chief)
    std::printf("data: %s (%d train, %d test examples); %d replica(s), global batch %d, %ld steps per epoch\n",
                data_dir.empty() ? "generated (no MNIST-format files)" : data_dir.c_str(), train.n, test.n, size, global_batch,
                steps_per_epoch);

  hello::Model model(train.dim);
  const size_t np = model.p.size();
  long step = 0;
  double epoch_loss = 0, epoch_correct = 0, epoch_examples = 0;
  nlohmann::json epochs = nlohmann::json::array();
  int recoveries = 0;
  bool first_step_reported = false;
  std::vector<int> perm(train.n);
  long perm_epoch = -1;
  std::vector<float> g(np + 2);
  auto epoch_t0 = Clock::now();
  double train_seconds = 0;

  for (;;) {
    try {
      ring.form(ms(recoveries == 0 ? o.connect_timeout : std::max(o.connect_timeout, o.peer_timeout)));
      // Agree on the state: the most advanced replica (lowest rank among equals) hands its
      // model, step and epoch counters to everyone (all zero on a fresh start).
      std::vector<double> s{double(step)};
      ring.allreduce(s, [](double a, double b) { return std::max(a, b); });
      std::vector<double> r{double(step) == s[0] ? double(role.rank) : 1e18};
      ring.allreduce(r, [](double a, double b) { return std::min(a, b); });
      std::vector<double> state(model.p.begin(), model.p.end());
      state.insert(state.end(), {double(step), epoch_loss, epoch_correct, epoch_examples});
      ring.broadcast(state, int(r[0]));
      std::copy(state.begin(), state.begin() + long(np), model.p.begin());
      step = long(state[np]);
      epoch_loss = state[np + 1], epoch_correct = state[np + 2], epoch_examples = state[np + 3];
      if (recoveries > 0)
        std::printf("%s: ring formed again with %d replicas; resuming at step %ld from rank %d\n", role.name.c_str(),
                    size, step, int(r[0]));

      while (step < total_steps) {
        const long epoch = step / steps_per_epoch, j = step % steps_per_epoch;
        if (epoch != perm_epoch) {  // the same permutation on every replica
          std::iota(perm.begin(), perm.end(), 0);
          std::mt19937 rng(o.seed + unsigned(epoch));
          std::shuffle(perm.begin(), perm.end(), rng);
          perm_epoch = epoch;
        }
        if (j == 0 && epoch_examples == 0) epoch_t0 = Clock::now();
        std::fill(g.begin(), g.end(), 0.0f);
        hello::accumulate_gradient(model, train, perm.data() + j * global_batch + long(role.rank) * o.batch_size,
                                   o.batch_size, g);
        ring.allreduce(g);
        const float scale = float(o.learning_rate / global_batch);
        for (size_t i = 0; i < np; ++i) model.p[i] -= scale * g[i];
        epoch_loss += g[np], epoch_correct += g[np + 1], epoch_examples += global_batch;
        ++step;
        if (!first_step_reported) {
          first_step_reported = true;
          std::printf("%s: first training step done %.3f s after start\n", role.name.c_str(), secs(Clock::now() - t_start));
        }
        if (step % steps_per_epoch == 0) {
          double dt = secs(Clock::now() - epoch_t0);
          train_seconds += dt;
          nlohmann::json e = {{"epoch", epoch + 1},
                              {"loss", epoch_loss / epoch_examples},
                              {"train_accuracy", epoch_correct / epoch_examples},
                              {"seconds", dt},
                              {"examples_per_second", epoch_examples / dt}};
          std::string line = "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(o.epochs);
          char buf[256];
          std::snprintf(buf, sizeof buf, ": loss %.4f, train accuracy %.4f", epoch_loss / epoch_examples,
                        epoch_correct / epoch_examples);
          line += buf;
          if (role.chief) {
            auto ev = hello::evaluate(model, test);
            e["test_loss"] = ev.loss;
            e["test_accuracy"] = ev.accuracy;
            std::snprintf(buf, sizeof buf, ", test accuracy %.4f", ev.accuracy);
            line += buf;
          }
          std::snprintf(buf, sizeof buf, " (%.2f s, %.0f examples/s)", dt, epoch_examples / dt);
          std::printf("%s%s\n", line.c_str(), buf);
          if (role.chief) epochs.push_back(e);
          epoch_loss = epoch_correct = epoch_examples = 0;
        }
        if (o.step_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(o.step_delay_ms));
      }
      std::vector<float> barrier{1.0f};
      ring.allreduce(barrier);  // everyone has finished the last step
      ring.shutdown();
      break;
    } catch (const hello::peer_lost& e) {
      if (++recoveries > o.max_recoveries)
        die(std::string("lost a peer too often (") + e.what() + "); giving up after " +
            std::to_string(o.max_recoveries) + " recoveries");
      std::printf("%s: lost a peer (%s); forming the ring again\n", role.name.c_str(), e.what());
      ring.close_peers();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    } catch (const hello::ring_error& e) {
      die(e.what());
    }
  }

  char sum[32];
  std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(hello::checksum(model)));
  std::printf("%s: model checksum %s\n", role.name.c_str(), sum);
  if (!role.chief) return 0;

  auto ev = hello::evaluate(model, test);
  std::printf("test accuracy: %.4f (test loss %.4f, %d examples)\n", ev.accuracy, ev.loss, test.n);
  if (o.output_dir.empty()) {
    std::printf("no --output-dir: model not saved\n");
    return 0;
  }
  mkdirs(o.output_dir);
  nlohmann::json m = {{"kind", "softmax-regression"}, {"inputs", model.dim}, {"classes", hello::kClasses},
                      {"weights", std::vector<float>(model.p.begin(), model.p.begin() + long(np) - hello::kClasses)},
                      {"bias", std::vector<float>(model.p.end() - hello::kClasses, model.p.end())}};
  write_file(o.output_dir + "/model.json", m.dump() + "\n");
  double total_examples = 0;
  for (auto& e : epochs) total_examples += e["examples_per_second"].get<double>() * e["seconds"].get<double>();
  nlohmann::json metrics = {{"replicas", size},
                            {"data_dir", data_dir.empty() ? std::string("generated") : data_dir},
                            {"train_examples", train.n},
                            {"test_examples", test.n},
                            {"batch_size_per_replica", o.batch_size},
                            {"learning_rate", o.learning_rate},
                            {"epochs", epochs},
                            {"test_accuracy", ev.accuracy},
                            {"test_loss", ev.loss},
                            {"examples_per_second", train_seconds > 0 ? total_examples / train_seconds : 0.0},
                            {"recoveries", recoveries},
                            {"model_checksum", sum}};
  write_file(o.output_dir + "/metrics.json", metrics.dump(2) + "\n");
  std::printf("wrote %s/model.json and %s/metrics.json\n", o.output_dir.c_str(), o.output_dir.c_str());
  return 0;
}
