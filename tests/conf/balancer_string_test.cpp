#include <gtest/gtest.h>

#include "conf/loader.h"

namespace spraylab::conf {
namespace {

TEST(BalancerString, ReadsOneBalancerWithItsDefaults) {
  BalancerSpec psp = load_balancer_string("{algorithm: psp, threshold: 200}", "lb_set");
  EXPECT_EQ(psp.algorithm, lb::Algorithm::kPsp);
  EXPECT_EQ(psp.bands, 4u);  // psp's default
  EXPECT_EQ(psp.threshold, 200u);
  EXPECT_EQ(load_balancer_string("{algorithm: ar}", "lb_set").state_update_ns, 100u);
}

TEST(BalancerString, RejectsAKeyOfAnotherAlgorithmWithItsPath) {
  try {
    load_balancer_string("{algorithm: ofan, bands: 4}", "lb_set");
    FAIL() << "accepted bands under ofan";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("lb_set:1:"), std::string::npos) << what;
    EXPECT_NE(what.find("load_balancer.bands"), std::string::npos) << what;
  }
}

TEST(BalancerString, RejectsAScalar) {
  EXPECT_THROW(load_balancer_string("ofan", "lb_set"), ConfigError);
}

}  // namespace
}  // namespace spraylab::conf
