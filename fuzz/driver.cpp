// SPDX-License-Identifier: BSD-3-Clause
// A stand-in for libFuzzer's main where the compiler has none (GCC): replays
// every input of the corpus directories, then mutates them at random (bit
// flips, interesting bytes, chunk insert/erase/copy, splices) until the time
// is up. No coverage feedback, so it finds less than libFuzzer does, but it
// runs inside the ASan/UBSan build that exists anyway. Accepts libFuzzer's
// -max_total_time=N, -seed=N and -artifact_prefix=P flags; other flags are
// ignored. A sanitizer report writes the input that caused it to
// <artifact_prefix>crash-input before the process dies.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// From the sanitizer runtime when one is linked (weak: a plain build has none).
extern "C" __attribute__((weak)) void __sanitizer_set_death_callback(void (*callback)(void));
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

using Bytes = std::vector<uint8_t>;
const Bytes* g_current = nullptr;
std::string g_artifact = "./";

void dump_current() {
  if (!g_current) return;
  const std::string path = g_artifact + "crash-input";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(g_current->data(), 1, g_current->size(), f);
    std::fclose(f);
    std::fprintf(stderr, "driver: the failing input is in %s\n", path.c_str());
  }
}

void run(const Bytes& b) {
  g_current = &b;
  LLVMFuzzerTestOneInput(b.data(), b.size());
  g_current = nullptr;
}

Bytes mutate(Bytes b, const std::vector<Bytes>& corpus, std::mt19937_64& rng) {
  static const uint8_t kInteresting[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0xfe, 16, 32, 64, 100, 127, 200, 255};
  const int steps = 1 + int(rng() % 8);
  for (int s = 0; s < steps; ++s) {
    const size_t n = b.size();
    switch (rng() % 7) {
      case 0:
        if (n) b[rng() % n] ^= uint8_t(1u << (rng() % 8));
        break;
      case 1:
        if (n) b[rng() % n] = kInteresting[rng() % sizeof kInteresting];
        break;
      case 2:
        if (n) b[rng() % n] = uint8_t(rng());
        break;
      case 3: b.insert(b.begin() + long(n ? rng() % (n + 1) : 0), uint8_t(rng())); break;
      case 4:
        if (n > 1) {
          size_t i = rng() % n, len = 1 + rng() % (n - i);
          b.erase(b.begin() + long(i), b.begin() + long(i + len));
        }
        break;
      case 5:
        if (n > 1) {
          size_t i = rng() % n, j = rng() % n;
          std::swap(b[i], b[j]);
        }
        break;
      default: {  // splice: a chunk of another input
        const Bytes& o = corpus[rng() % corpus.size()];
        if (o.empty()) break;
        size_t i = rng() % o.size(), len = 1 + rng() % (o.size() - i);
        b.insert(b.begin() + long(n ? rng() % (n + 1) : 0), o.begin() + long(i), o.begin() + long(i + len));
      }
    }
  }
  if (b.size() > 4096) b.resize(4096);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  double seconds = 10;
  uint64_t seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  std::vector<Bytes> corpus;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("-max_total_time=", 0) == 0)
      seconds = std::atof(a.c_str() + 16);
    else if (a.rfind("-seed=", 0) == 0)
      seed = std::strtoull(a.c_str() + 6, nullptr, 10);
    else if (a.rfind("-artifact_prefix=", 0) == 0)
      g_artifact = a.substr(17);
    else if (a[0] == '-')
      continue;
    else if (std::filesystem::is_directory(a)) {
      for (const auto& e : std::filesystem::directory_iterator(a)) {
        std::ifstream f(e.path(), std::ios::binary);
        corpus.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
      }
    } else {
      std::ifstream f(a, std::ios::binary);  // one input: replay it and stop
      Bytes b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(dump_current);
      run(b);
      return 0;
    }
  }
  if (corpus.empty()) corpus.emplace_back();
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(dump_current);
  for (const Bytes& b : corpus) run(b);
  std::mt19937_64 rng(seed);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t runs = corpus.size();
  while (std::chrono::steady_clock::now() < end) {
    for (int k = 0; k < 64; ++k, ++runs) run(mutate(corpus[rng() % corpus.size()], corpus, rng));
  }
  std::printf("driver: %llu runs in %.0f s (seed %llu), no finding\n", (unsigned long long)runs, seconds,
              (unsigned long long)seed);
  return 0;
}
