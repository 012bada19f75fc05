#include <catch2/catch.hpp>

#include "ptp/profile/busbw.hpp"
#include "ptp/vocab/error.hpp"

using namespace ptp::profile;

TEST_CASE("nccl-tests bus bandwidth factors", "[busbw]") {
  CHECK(bus_factor("all_reduce", 8) == Approx(1.75));
  CHECK(bus_factor("all_reduce", 1) == 0);
  CHECK(bus_factor("reduce_scatter", 8) == Approx(0.875));
  CHECK(bus_factor("all_gather", 4) == Approx(0.75));
  CHECK(bus_factor("all_to_all", 2) == Approx(0.5));
  CHECK(bus_factor("broadcast", 8) == 1);
  CHECK(bus_factor("send_recv", 2) == 1);
  CHECK_THROWS_AS(bus_factor("allreduce", 8), ptp::vocab::InputError);
  CHECK_THROWS_AS(bus_factor("all_reduce", 0), ptp::vocab::InputError);
}

TEST_CASE("algbw and busbw reproduce published nccl-tests numbers", "[busbw]") {
  // OCI BM.GPU4.8, 8x A100, 10 GiB float all_reduce: 80922 us, 132.69 GB/s algbw, 232.2 busbw
  // (shared/data/nccl_allreduce.csv, oracle-japan/ocitutorials).
  CHECK(algbw_GBps(10737418240.0, 80922e-6) == Approx(132.69).epsilon(1e-3));
  CHECK(busbw_GBps("all_reduce", 8, 10737418240.0, 80922e-6) == Approx(232.2).epsilon(1e-3));
}
