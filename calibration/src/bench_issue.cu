// Item 45 (`issue`): a group's issue with its descriptors built in the loop from a
// per-thread address, as the generated kernels build them, or once before the loop; item 46
// (`fence`): a dependent chain before or after the group's fence, where the start runs from;
// item 47 (`queued`): a group's issue with its own previous group or the other warpgroup's
// groups queued on the tensor cores.
// The kernels and what they time are in bench_issue_kernels.cuh. Per configuration: cycles
// from warpgroup 0's pass start to its commit (the issue) and to the end of `wait_group 0`
// (the group), medians over 132 SMs x 3 launches x 4 warps, per group.
#include <cstring>

#include "common.h"
#include "bench_issue_kernels.cuh"

static long long* d_out;
static float* d_sink;
static const int kSmem = 1024 + kOneCtaPerSmSmem;  // forces 1 CTA/SM

// Launches `k` on every SM three times (one CTA each, 1 CTA/SM) and collects each warp of
// warpgroup 0's mean issue and group cycles a pass.
template <typename Kernel>
static void collect(Kernel k, int passes, std::vector<double>& issue_cycles, std::vector<double>& group_cycles) {
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  const int sms = num_sms();
  for (auto& o : three_launches([&] { k<<<sms, 256, kSmem>>>(d_out, d_sink, passes); }, d_out, sms * 8)) {
    for (int c = 0; c < sms; ++c) {
      for (int w = 0; w < 4; ++w) {
        issue_cycles.push_back((double)o[(c * 4 + w) * 2] / passes);
        group_cycles.push_back((double)o[(c * 4 + w) * 2 + 1] / passes);
      }
    }
  }
}

template <int BUILD, int OTHER, int G>
static void run_issue() {
  const int sms = num_sms(), passes = 256;
  std::vector<double> issue_cycles, group_cycles;
  collect(issue::issue_pieces<BUILD, OTHER, G>, passes, issue_cycles, group_cycles);
  const char* build = BUILD == issue::BUILD_EACH ? "each" : "once";
  const char* other = OTHER == issue::OTHER_SS ? "ss" : "idle";
  char name[96], method[400];
  snprintf(method, sizeof method,
           "1 CTA/SM of 2 warpgroups on %d SMs x 3 launches; warpgroup 0: {t0; fence; %d wgmma m64n128k16 SS, "
           "descriptors built %s; commit; t1; wait_group 0; t2} x %d passes; warpgroup 1: %s",
           sms, G, BUILD == issue::BUILD_EACH ? "before each MMA from a per-thread address" : "once before the loop",
           passes, OTHER == issue::OTHER_SS ? "groups of 4 wgmma m64n128k16 SS back to back" : "idle");
  snprintf(name, sizeof name, "issue_g%d_%s_%s_issue", G, build, other);
  emit(name, stats_of(issue_cycles), "cycles a group, fence to commit", method);
  snprintf(name, sizeof name, "issue_g%d_%s_%s_group", G, build, other);
  emit(name, stats_of(group_cycles), "cycles a group, fence to the end of wait_group 0", method);
}

template <int WHERE, int K, int G>
static void run_fence() {
  const int sms = num_sms(), passes = 256;
  std::vector<double> issue_cycles, group_cycles, tail_cycles;
  collect(issue::fence_pad<WHERE, K, G>, passes, issue_cycles, group_cycles);
  for (size_t i = 0; i < issue_cycles.size(); ++i) tail_cycles.push_back(group_cycles[i] - issue_cycles[i]);
  const char* where = WHERE == issue::PAD_NONE ? "none" : WHERE == issue::PAD_BEFORE ? "before" : "after";
  char name[96], method[400];
  snprintf(method, sizeof method,
           "1 CTA/SM of 2 warpgroups on %d SMs x 3 launches; warpgroup 0: {t0; %s fence; %s %d wgmma m64n128k16 "
           "SS; commit; t1; wait_group 0; t2} x %d passes (the chain: %d dependent mad.lo.u32 seeded by a clock "
           "read); warpgroup 1: idle",
           sms, WHERE == issue::PAD_BEFORE ? "chain; bar.warp.sync on its result;" : "",
           WHERE == issue::PAD_AFTER ? "chain;" : "", G, passes, K);
  snprintf(name, sizeof name, "fence_g%d_k%d_%s_issue", G, K, where);
  emit(name, stats_of(issue_cycles), "cycles a group, t0 to commit", method);
  snprintf(name, sizeof name, "fence_g%d_k%d_%s_group", G, K, where);
  emit(name, stats_of(group_cycles), "cycles a group, t0 to the end of wait_group 0", method);
  snprintf(name, sizeof name, "fence_g%d_k%d_%s_tail", G, K, where);
  emit(name, stats_of(tail_cycles), "cycles a group, commit to the end of wait_group 0", method);
}

template <int W, int OTHER>
static void run_queued() {
  const int sms = num_sms(), passes = 256;
  std::vector<double> issue_cycles, group_cycles;
  collect(issue::queued_issue<W, OTHER>, passes, issue_cycles, group_cycles);
  const char* other = OTHER == issue::OTHER_SS ? "ss" : "idle";
  char name[96], method[400];
  snprintf(method, sizeof method,
           "1 CTA/SM of 2 warpgroups on %d SMs x 3 launches; warpgroup 0: {t0; fence; 4 wgmma m64n128k16 SS; "
           "commit; t1; wait_group %d; t2} x %d passes, two accumulators in turn; warpgroup 1: %s",
           sms, W, passes, OTHER == issue::OTHER_SS ? "groups of 4 wgmma m64n128k16 SS back to back" : "idle");
  snprintf(name, sizeof name, "queued_w%d_%s_issue", W, other);
  emit(name, stats_of(issue_cycles), "cycles a group, t0 to commit", method);
  snprintf(name, sizeof name, "queued_w%d_%s_group", W, other);
  emit(name, stats_of(group_cycles), "cycles a group, t0 to the end of the wait", method);
}

int main(int argc, char** argv) {
  CK(cudaMalloc(&d_out, 132 * 8 * 2 * 8));
  CK(cudaMalloc(&d_sink, 4096 * 4));
  warm_gpu();
  if (argc > 1 && strcmp(argv[1], "issue") == 0) {
    run_issue<issue::BUILD_ONCE, issue::OTHER_IDLE, 4>();
    run_issue<issue::BUILD_EACH, issue::OTHER_IDLE, 4>();
    run_issue<issue::BUILD_ONCE, issue::OTHER_IDLE, 8>();
    run_issue<issue::BUILD_EACH, issue::OTHER_IDLE, 8>();
    run_issue<issue::BUILD_ONCE, issue::OTHER_SS, 4>();
    run_issue<issue::BUILD_EACH, issue::OTHER_SS, 4>();
    run_issue<issue::BUILD_ONCE, issue::OTHER_SS, 8>();
    run_issue<issue::BUILD_EACH, issue::OTHER_SS, 8>();
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "fence") == 0) {
    run_fence<issue::PAD_NONE, 0, 4>();
    run_fence<issue::PAD_BEFORE, 16, 4>();
    run_fence<issue::PAD_AFTER, 16, 4>();
    run_fence<issue::PAD_BEFORE, 32, 4>();
    run_fence<issue::PAD_AFTER, 32, 4>();
    run_fence<issue::PAD_BEFORE, 32, 8>();
    run_fence<issue::PAD_AFTER, 32, 8>();
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "queued") == 0) {
    run_queued<0, issue::OTHER_IDLE>();
    run_queued<1, issue::OTHER_IDLE>();
    run_queued<0, issue::OTHER_SS>();
    run_queued<1, issue::OTHER_SS>();
    return 0;
  }
  fprintf(stderr, "usage: bench_issue issue|fence|queued\n");
  return 2;
}
