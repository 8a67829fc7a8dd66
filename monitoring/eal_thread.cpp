#include "monitoring/eal_thread.h"

#include <pthread.h>
#include <rte_lcore.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace spraylab::monitoring {

void run_on_control_thread(const std::function<void()>& fn) {
  pthread_t tid;
  auto body = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  const int rc = rte_ctrl_thread_create(&tid, "spraylab-metrics", nullptr, body,
                                        const_cast<std::function<void()>*>(&fn));
  if (rc != 0) {
    throw std::runtime_error("cannot create the metrics thread: " + std::string(strerror(-rc)));
  }
  pthread_join(tid, nullptr);
}

}  // namespace spraylab::monitoring
