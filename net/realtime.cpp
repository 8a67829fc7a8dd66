#include "net/realtime.h"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <cstdio>
#include <cstring>

namespace spraylab::net {

std::string make_thread_realtime(int priority) {
  if (priority < 1 || priority > kMaxRtPriority) {
    return fmt::format("priority {} is outside 1..{}", priority, kMaxRtPriority);
  }
  sched_param param{};
  param.sched_priority = priority;
  const int rc = pthread_setschedparam(pthread_self(), SCHED_RR, &param);
  return rc == 0 ? std::string() : std::string(std::strerror(rc));
}

void make_thread_fair() {
  sched_param param{};
  param.sched_priority = 0;
  pthread_setschedparam(pthread_self(), SCHED_OTHER, &param);
}

void apply_rt_priority(const char* program, int priority) {
  if (priority == 0) return;
  const std::string why = make_thread_realtime(priority);
  if (!why.empty()) {
    fmt::print(stderr,
               "{}: warning: --rt-priority {}: the data path stays in the fair scheduler: {} "
               "(needs root or CAP_SYS_NICE)\n",
               program, priority, why);
  }
}

}  // namespace spraylab::net
