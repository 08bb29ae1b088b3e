// GoogleTest from sc_main (libsystemc owns main). SystemC warnings fail the
// test (they throw); the kernel banner is switched off before it prints.
#include <gtest/gtest.h>
#include <systemc>

#include <cstdlib>

int sc_main(int argc, char** argv) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_THROW);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

int main(int argc, char** argv) {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
