#include <doctest/doctest.h>

#include "model/flow_solver.hpp"

using namespace tpsim;

TEST_CASE("max-min sharing: two flows on one link take twice as long") {
  // Each flow alone: 100 B / 10 B/s = 10 s; sharing the link, 5 B/s each: 20 s.
  CHECK(completion_time({{100, {0}}}, {10}) == doctest::Approx(10).scale(0));
  CHECK(completion_time({{100, {0}}, {100, {0}}}, {10}) == doctest::Approx(20).scale(0));
  // A short flow finishes first and frees capacity: 50 B at 5 B/s (10 s), then 50 B left at 10 B/s (5 s).
  CHECK(completion_time({{50, {0}}, {100, {0}}}, {10}) == doctest::Approx(15).scale(0));
  // Disjoint links do not interfere.
  CHECK(completion_time({{100, {0}}, {100, {1}}}, {10, 10}) == doctest::Approx(10).scale(0));
}
