// The name tables behind the project's enums (ptp/vocab/enum_names.hpp): each enumerator has one
// row, names round-trip, and parsing errors name the choices and the nearest one.
#include <catch2/catch.hpp>

#include "ptp/predict/job_spec.hpp"
#include "ptp/predict/search.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/point_status.hpp"
#include "ptp/vocab/training_layout.hpp"

using namespace ptp::predict;

namespace {
// Every enumerator 0..count-1 appears exactly once, and its name parses back to it.
template <class E>
void round_trips(const EnumNames<E>& table, int count) {
  REQUIRE(static_cast<int>(table.size()) == count);
  for (int i = 0; i < count; ++i) {
    const E value = static_cast<E>(i);
    const std::string name = name_of(table, value);
    CHECK(name != "?");
    REQUIRE(find_named(table, name) != nullptr);
    CHECK(*find_named(table, name) == value);
  }
  CHECK(find_named(table, "") == nullptr);
}
}  // namespace

TEST_CASE("every enum's name table has one row per enumerator and round-trips", "[vocab][names]") {
  round_trips(sharding_names(), 6);
  round_trips(recompute_names(), 3);
  round_trips(point_status_names(), 4);
  round_trips(search_objective_names(), 5);
  CHECK(std::string(sharding_name(Sharding::hsdp)) == "hsdp");
  CHECK(std::string(recompute_name(Recompute::selective)) == "selective");
  CHECK(std::string(point_status_name(PointStatus::unsupported)) == "unsupported");
  CHECK(std::string(search_objective_name(SearchObjective::gpu_hours)) == "gpu_hours");
}

TEST_CASE("what each sharding mode splits", "[vocab][names]") {
  CHECK_FALSE(shards_optimizer(Sharding::none));
  CHECK(shards_optimizer(Sharding::zero1));
  CHECK_FALSE(shards_grads(Sharding::zero1));
  CHECK(shards_grads(Sharding::zero2));
  CHECK_FALSE(shards_weights(Sharding::zero2));
  for (Sharding s : {Sharding::zero3, Sharding::fsdp, Sharding::hsdp}) {
    CHECK(shards_weights(s));
    CHECK(shards_grads(s));
    CHECK(shards_optimizer(s));
  }
}

TEST_CASE("parsing a name the table lacks names the choices and the nearest", "[vocab][names]") {
  try {
    parse_search_objective("energi");
    FAIL("accepted an unknown objective");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "--objective 'energi': expected time | cost | gpu_hours | energy | carbon (did you mean: energy?)");
  }
  CHECK_THROWS_AS(parse_named(sharding_names(), "zero4", "sharding"), InputError);
  CHECK(parse_named(recompute_names(), "full", "activation_checkpointing") == Recompute::full);
}
