// SPDX-License-Identifier: BSD-3-Clause
// Shared harness for the tensorc-vs-peer benchmarks.
//
// Method (the same for every benchmark):
//  - Each contestant (tensorc, libtorch, BLIS, ...) is a std::function that runs
//    one iteration of the operation. It is warmed up and calibrated alone:
//    k calls per timed sample (so a sample lasts >= ~50 us and the clock's cost
//    vanishes) and S samples per block (so a block lasts >= 50 ms, and never
//    fewer than 3 samples).
//  - Then T trials (default 7): each trial runs one block of every contestant,
//    rotating which one goes first, and keeps each block's median per-iteration
//    time. The machine is noisy in a bimodal way, so interleaving is what makes
//    the ratio meaningful: both sides see the same weather.
//  - Reported: the median of the trial medians, the spread (min-max of the trial
//    medians), and ratio = peer median / tensorc median (> 1: tensorc faster),
//    with the min-max of the per-trial ratios beside it.
// Environment: BENCH_TRIALS (default 7), BENCH_BLOCK_MS (default 50).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace bench {

inline double now_s() {
  using clk = std::chrono::steady_clock;
  return std::chrono::duration<double>(clk::now().time_since_epoch()).count();
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline int env_int(const char* name, int dflt) {
  const char* e = std::getenv(name);
  if (!e || !*e) return dflt;
  int v = std::atoi(e);
  return v > 0 ? v : dflt;
}

struct Contestant {
  Contestant(std::string n, std::function<void()> f) : name(std::move(n)), fn(std::move(f)) {}
  std::string name;
  std::function<void()> fn;
  // filled by run()
  long calls_per_sample = 1;
  long samples_per_block = 3;
  std::vector<double> trial_medians;  // seconds per iteration
  double med() const { return median(trial_medians); }
  double lo() const { return *std::min_element(trial_medians.begin(), trial_medians.end()); }
  double hi() const { return *std::max_element(trial_medians.begin(), trial_medians.end()); }
};

struct Options {
  int trials = env_int("BENCH_TRIALS", 7);
  double block_s = env_int("BENCH_BLOCK_MS", 50) * 1e-3;
  double sample_s = 50e-6;
  long min_samples = 3;
};

// One block: S samples of k calls each; returns the median seconds per call.
inline double run_block(Contestant& c) {
  std::vector<double> samples;
  samples.reserve(size_t(c.samples_per_block));
  for (long s = 0; s < c.samples_per_block; ++s) {
    double t0 = now_s();
    for (long i = 0; i < c.calls_per_sample; ++i) c.fn();
    samples.push_back((now_s() - t0) / double(c.calls_per_sample));
  }
  return median(samples);
}

inline void calibrate(Contestant& c, const Options& o) {
  // Warm up: at least 2 calls and ~20 ms (first-touch pages, caches, pools).
  double t0 = now_s();
  long n = 0;
  while (n < 2 || (now_s() - t0 < 0.02 && n < 100000)) {
    c.fn();
    ++n;
  }
  // Estimate the time of one call from a short timed run.
  long k = 1;
  double per = 0;
  for (;;) {
    double a = now_s();
    for (long i = 0; i < k; ++i) c.fn();
    double el = now_s() - a;
    per = el / double(k);
    if (el >= 0.005 || k >= (1L << 24)) break;
    k *= 4;
  }
  per = std::max(per, 1e-9);
  c.calls_per_sample = std::max(1L, long(std::ceil(o.sample_s / per)));
  double sample = per * double(c.calls_per_sample);
  c.samples_per_block = std::max(o.min_samples, long(std::ceil(o.block_s / sample)));
}

inline void run(std::vector<Contestant>& cs, const Options& o = Options()) {
  for (auto& c : cs) {
    c.trial_medians.clear();
    calibrate(c, o);
  }
  const size_t m = cs.size();
  for (int t = 0; t < o.trials; ++t)
    for (size_t j = 0; j < m; ++j) {
      Contestant& c = cs[(size_t(t) + j) % m];  // rotate who goes first
      c.trial_medians.push_back(run_block(c));
    }
}

// ratio = peer / tensorc of the medians; per-trial ratio range beside it.
struct Ratio {
  double med, lo, hi;
};
inline Ratio ratio(const Contestant& peer, const Contestant& tc) {
  std::vector<double> r;
  for (size_t i = 0; i < tc.trial_medians.size(); ++i) r.push_back(peer.trial_medians[i] / tc.trial_medians[i]);
  return {peer.med() / tc.med(), *std::min_element(r.begin(), r.end()), *std::max_element(r.begin(), r.end())};
}

inline std::string fmt_time(double s) {
  char buf[64];
  if (s < 1e-6)
    std::snprintf(buf, sizeof buf, "%.0f ns", s * 1e9);
  else if (s < 1e-5)
    std::snprintf(buf, sizeof buf, "%.2f µs", s * 1e6);
  else if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.1f µs", s * 1e6);
  else if (s < 1e-2)
    std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  else if (s < 1)
    std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

// "1.23 µs (1.20–1.40)": median and spread of the trial medians.
inline std::string fmt_stat(const Contestant& c) {
  std::string lo = fmt_time(c.lo()), hi = fmt_time(c.hi());
  // Drop the unit of the low end when both ends share it.
  auto unit = [](const std::string& s) { return s.substr(s.find(' ')); };
  if (unit(lo) == unit(hi)) lo = lo.substr(0, lo.find(' '));
  return fmt_time(c.med()) + " (" + lo + "–" + hi + ")";
}

inline std::string fmt_ratio(const Ratio& r) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "**%.2f** (%.2f–%.2f)", r.med, r.lo, r.hi);
  return buf;
}

// One tensorc-vs-peer row: the two run interleaved, then the markdown row
// "| name | tensorc | peer | peer/tensorc |" is printed.
struct PairRow {
  std::string name;
  Contestant tc, peer;
};
inline void run_and_print(const PairRow& r, const Options& o = Options()) {
  std::vector<Contestant> cs{r.tc, r.peer};
  run(cs, o);
  std::printf("| %s | %s | %s | %s |\n", r.name.c_str(), fmt_stat(cs[0]).c_str(), fmt_stat(cs[1]).c_str(),
              fmt_ratio(ratio(cs[1], cs[0])).c_str());
  std::fflush(stdout);
}

inline std::string fmt_num(double v, const char* f = "%.1f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Parses "--threads N" style options shared by the programs.
inline int arg_int(int argc, char** argv, const char* flag, int dflt) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) return std::atoi(argv[i + 1]);
  return dflt;
}
inline std::string arg_str(int argc, char** argv, const char* flag, const std::string& dflt) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) return argv[i + 1];
  return dflt;
}

inline bool has_flag(int argc, char** argv, const char* flag) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) return true;
  return false;
}

}  // namespace bench

// tensorc helpers, for programs that include tensorc.h first.
#ifdef TENSORC_H
namespace bench {
// Aborts with the library's message on a failing tensorc call (benchmarks only).
inline void tc_ok(tc_status s, const char* what) {
  if (s != TC_OK) {
    std::fprintf(stderr, "tensorc call failed: %s: %s\n", what, tc_last_error_message());
    std::exit(2);
  }
}
#define TC_OK_OR_DIE(call) ::bench::tc_ok((call), #call)
}  // namespace bench
#endif
