// Sweeps across MPI ranks (`mpirun -np K hxsim run STUDY --mpi`): rank 0
// checks the study, hands point indices to its own point server and to the
// other ranks as they become free, gathers each point's result files over
// MPI and writes them, the results and the CSV exactly as a local run
// would; every rank starts one point server (`hxsim _serve`, as a local
// sweep does), which forks a process for every point it is given (SystemC
// elaborates once per process), and ranks 1..K-1 send its files back. Nothing but the study file needs to
// be shared between the machines. Results are byte-identical to a local
// run: the same code computes every point with the same seed.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "src/sim/point.h"
#include "src/sim/pool.h"

namespace hx::sim {

bool mpi_available();
// The pool rank 0 uses inside run_study.
std::unique_ptr<PointPool> make_mpi_pool(const RunArgs& a, const std::string& self, const StudyFiles& f, const Sweep& points,
                                         std::uint64_t seed, const std::string& dir);
// `hxsim run --mpi`: every rank calls this; rank 0 runs `rank0` (the
// driver's run_study, which takes its pool from make_mpi_pool), the others
// serve points. Returns the process exit code.
int run_study_mpi(const RunArgs& a, const std::string& self, const std::function<int()>& rank0);

}  // namespace hx::sim
