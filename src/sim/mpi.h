// Sweeps across MPI ranks (`mpirun -np K hxsim run STUDY --mpi`): rank 0
// checks the study, hands point indices to the other ranks as they become
// free, gathers each point's result files over MPI and writes them, the
// results and the CSV exactly as a local run would; ranks 1..K-1 each start
// one point server (`hxsim _serve`, as a local sweep does), which forks a
// process for every point they are given (SystemC elaborates once per
// process), and send its files back. Nothing but the study file needs to
// be shared between the machines. Results are byte-identical to a local
// run: the same code computes every point with the same seed.
#pragma once
#include <memory>
#include <string>

#include "src/sim/driver.h"

namespace hx::sim {

bool mpi_available();
// The pool rank 0 uses inside run_study.
std::unique_ptr<PointPool> make_mpi_pool(const RunArgs& a, const std::string& self, const std::string& dir);
// `hxsim run --mpi`: every rank calls this; returns the process exit code.
int run_study_mpi(const RunArgs& a, const std::string& self);

}  // namespace hx::sim
