// SPDX-License-Identifier: BSD-3-Clause
// Benchmark 7: a small program on a machine whose CPUs are busy with other
// work. tensorc's C ABI against libtorch, interleaved (bench_common.h), at
// the thread count given by --threads, while 0, 1, ... busy processes run
// beside it. The busy processes are children of this program, each spinning
// in a loop (unpinned; --pin pins busy process i to CPU i), started before a
// configuration is calibrated and killed after it (and when this program
// dies: PR_SET_PDEATHSIG). Workloads:
//  - one training step of an MLP 784-256-10, batch 64, float32 (bench_mlp.h);
//  - a chain of small element-wise ops on 64K-element float32 tensors (256 KiB,
//    each op above the 32K-element parallel grain of both libraries):
//    s = sum(relu(a * b + c) * 0.5), five ops and four fresh outputs.
// Slowdown = median time with N busy processes / median time with none.
// Fair share = max(1, (threads + busy) / CPUs): the slowdown if every
// runnable thread got an equal share of the CPUs and the work were perfectly
// parallel (a serial program does better). A cliff is a slowdown far above it.
//   bench_contention --threads 2 [--busy 0,1,2] [--pin] [--only mlp|chain]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/generated/variable_factories.h>
#include <torch/csrc/autograd/grad_mode.h>
#include <unistd.h>

#include <tensorc.h>

#include <atomic>
#include <sstream>
#include <thread>

#include "bench_common.h"
#include "bench_mlp.h"

using bench::Contestant;

namespace {

// ---- busy processes ----
constexpr int kMaxBusy = 64;
pid_t g_busy[kMaxBusy];
std::atomic<int> g_nbusy{0};

void stop_busy() {
  int n = g_nbusy.exchange(0);
  for (int i = 0; i < n; ++i) kill(g_busy[i], SIGKILL);
  for (int i = 0; i < n; ++i) waitpid(g_busy[i], nullptr, 0);
}

void on_signal(int sig) {
  int n = g_nbusy.load();
  for (int i = 0; i < n; ++i) kill(g_busy[i], SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

// Starts n processes that spin until killed; pinned to CPUs 0, 1, ... when pin.
void start_busy(int n, bool pin) {
  const pid_t parent = getpid();
  const int cpus = int(std::thread::hardware_concurrency());
  for (int i = 0; i < n && i < kMaxBusy; ++i) {
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("fork");
      stop_busy();
      std::exit(2);
    }
    if (pid == 0) {  // the child: async-signal-safe calls only, then spin
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(0);
      if (pin) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(i % cpus, &set);
        sched_setaffinity(0, sizeof set, &set);
      }
      volatile unsigned long x = 0;
      for (;;) x = x + 1;
    }
    g_busy[i] = pid;
    g_nbusy.store(i + 1);
  }
  // Let them start (and the scheduler see them) before anything is timed.
  usleep(200000);
}

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::atoi(item.c_str()));
  return v;
}

// ---- the element-wise chain ----
struct TcChain {
  tc_tensor a, b, c;
  void run() {
    tc_tensor m = nullptr, s = nullptr, r = nullptr, h = nullptr, out = nullptr;
    tc_scalar half = tc_scalar_float(0.5);
    TC_OK_OR_DIE(tc_mul_Tensor(&m, a, b));
    TC_OK_OR_DIE(tc_add_Tensor(&s, m, c, nullptr));
    TC_OK_OR_DIE(tc_relu(&r, s));
    TC_OK_OR_DIE(tc_mul_Scalar(&h, r, half));
    TC_OK_OR_DIE(tc_sum(&out, h, nullptr));
    for (tc_tensor t : {m, s, r, h, out}) tc_tensor_release(t);
  }
};
struct AtChain {
  at::Tensor a, b, c;
  void run() { at::Tensor out = at::sum(at::relu(a * b + c) * 0.5); }
};

}  // namespace

int main(int argc, char** argv) {
  const int threads = bench::arg_int(argc, argv, "--threads", 1);
  const std::vector<int> busy = parse_list(bench::arg_str(argc, argv, "--busy", "0,1,2"));
  const bool pin = bench::has_flag(argc, argv, "--pin");
  const std::string only = bench::arg_str(argc, argv, "--only", "");
  const int cpus = int(std::thread::hardware_concurrency());
  TC_OK_OR_DIE(tc_set_num_threads(threads));
  at::set_num_threads(threads);
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  std::atexit(stop_busy);

  bench::MlpPair mlp = bench::make_mlp_pair("bench_contention");

  const int64_t n = 65536;
  at::manual_seed(0);
  at::Tensor pa = at::rand({n}), pb = at::rand({n}), pc = at::rand({n}) - 0.5;
  auto tc_of = [&](const at::Tensor& t) {
    tc_tensor r = nullptr;
    TC_OK_OR_DIE(tc_tensor_from_data(&r, t.data_ptr<float>(), TC_FLOAT32, &n, 1));
    return r;
  };
  TcChain tch{tc_of(pa), tc_of(pb), tc_of(pc)};
  AtChain ach{pa, pb, pc};
  {  // same result
    tc_tensor m = nullptr, s = nullptr, r = nullptr, h = nullptr, out = nullptr;
    tc_scalar half = tc_scalar_float(0.5);
    TC_OK_OR_DIE(tc_mul_Tensor(&m, tch.a, tch.b));
    TC_OK_OR_DIE(tc_add_Tensor(&s, m, tch.c, nullptr));
    TC_OK_OR_DIE(tc_relu(&r, s));
    TC_OK_OR_DIE(tc_mul_Scalar(&h, r, half));
    TC_OK_OR_DIE(tc_sum(&out, h, nullptr));
    float got = 0;
    TC_OK_OR_DIE(tc_tensor_copy_to_buffer(&got, sizeof got, out));
    double want = at::sum(at::relu(pa * pb + pc) * 0.5).item<double>();
    for (tc_tensor t : {m, s, r, h, out}) tc_tensor_release(t);
    if (!(std::fabs(got - want) <= 1e-4 * std::fabs(want))) {
      std::fprintf(stderr, "bench_contention: the chain disagrees with libtorch (%g vs %g)\n", got, want);
      return 3;
    }
  }

  struct Work {
    std::string key, name;
    std::function<void()> tc, peer;
  };
  std::vector<Work> work{
      {"mlp", "MLP 784-256-10 step, batch 64", [&] { mlp.tc.step(1e-4f); }, [&] { mlp.at.step(1e-4f); }},
      {"chain", "sum(relu(a*b + c) * 0.5), 64K float32", [&] { tch.run(); }, [&] { ach.run(); }}};

  std::printf(
      "| %d thread%s, %d CPUs | busy processes%s | tensorc | libtorch | libtorch/tensorc | tensorc slowdown | "
      "libtorch slowdown | fair share |\n",
      threads, threads == 1 ? "" : "s", cpus, pin ? " (pinned)" : "");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const Work& w : work) {
    if (!only.empty() && w.key != only) continue;
    double base_tc = 0, base_peer = 0;
    for (int nb : busy) {
      start_busy(nb, pin);
      std::vector<Contestant> cs{{"tensorc", w.tc}, {"libtorch", w.peer}};
      bench::run(cs);
      stop_busy();
      if (base_tc == 0) {  // the first configuration (0 busy processes by default)
        base_tc = cs[0].med();
        base_peer = cs[1].med();
      }
      double fair = std::max(1.0, double(threads + nb) / cpus);
      std::printf("| %s | %d | %s | %s | %s | %s | %s | %s |\n", w.name.c_str(), nb, bench::fmt_stat(cs[0]).c_str(),
                  bench::fmt_stat(cs[1]).c_str(), bench::fmt_ratio(bench::ratio(cs[1], cs[0])).c_str(),
                  bench::fmt_num(cs[0].med() / base_tc, "%.2f").c_str(),
                  bench::fmt_num(cs[1].med() / base_peer, "%.2f").c_str(), bench::fmt_num(fair, "%.2f").c_str());
      std::fflush(stdout);
    }
  }
  for (tc_tensor t : {tch.a, tch.b, tch.c}) tc_tensor_release(t);
  mlp.tc.release();
  return 0;
}
