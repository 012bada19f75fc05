#include "ptp/profile/sweep.hpp"

#include <algorithm>
#include <set>

#include "ptp/profile/axis_values.hpp"
#include "ptp/vocab/error.hpp"
#include "ptp/vocab/yaml_reader.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile {

namespace {

constexpr std::size_t kMaxSweepPoints = 100000;  // in one sweep file, all benchmarks together

StopRule read_rule(const YamlReader& s, StopRule rule) {
  s.expect_map();
  s.check_keys({"warmup", "min_reps", "max_reps", "rel_noise", "max_time_s", "l2_flush"});
  rule.warmup = static_cast<int>(s.get_int("warmup", 0, 1000, rule.warmup));
  rule.min_reps = static_cast<int>(s.get_int("min_reps", 1, 100000, rule.min_reps));
  rule.max_reps = static_cast<int>(s.get_int("max_reps", 1, 1000000, rule.max_reps));
  rule.rel_noise = s.get_number("rel_noise", 0, 1, rule.rel_noise);
  rule.max_time_s = s.get_number("max_time_s", 1e-6, 3600, rule.max_time_s);
  rule.l2_flush = s.get_bool("l2_flush", rule.l2_flush);
  if (rule.max_reps < rule.min_reps) s.fail("max_reps is below min_reps");
  return rule;
}

void expand_benchmark(const YamlReader& entry, const std::string& target, const Registry& registry,
                      const StopRule& base, std::vector<PlannedPoint>& out) {
  entry.expect_map();
  entry.check_keys({"bench", "axes", "settings"});
  const YamlReader name_node = entry.child("bench");
  const std::string where = format_location(entry.file(), name_node.line(), name_node.column()) + ": " +
                            name_node.path();
  const Microbenchmark& bench = registry.get(name_node.as_string(), where);
  const StopRule rule = entry.has("settings") ? read_rule(entry.child("settings"), base) : base;

  std::vector<std::string> axis_names;
  for (const auto& a : bench.axes()) axis_names.push_back(a.name);
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  std::set<std::string> given;
  if (auto node = entry.optional_child("axes")) {
    node->expect_map();
    node->check_keys(axis_names);
    for (const auto& key : node->keys()) {
      axes.emplace_back(key, expand_axis(node->child(key)));
      given.insert(key);
    }
  }
  for (const auto& a : bench.axes()) {
    if (given.count(a.name)) continue;
    if (a.fallback.empty()) entry.fail("benchmark '" + bench.name() + "' needs axis '" + a.name + "' (" + a.help + ")");
    axes.push_back({a.name, {a.fallback}});
  }

  // Each axis is capped (axis_values.cpp), their product is not: three 4096-value axes are 7e10 points.
  double points = static_cast<double>(out.size());
  double product = 1;
  for (const auto& a : axes) product *= static_cast<double>(a.second.size());
  if (points + product > static_cast<double>(kMaxSweepPoints))
    entry.fail("sweep expands to " + std::to_string(static_cast<long long>(std::min(points + product, 1e18))) +
               " points, more than " + std::to_string(kMaxSweepPoints) + "; narrow the axes or split the sweep");
  std::vector<std::size_t> idx(axes.size(), 0);  // odometer over the Cartesian product
  for (;;) {
    PlannedPoint pp;
    pp.point.bench = &bench;
    pp.point.target = target;
    for (std::size_t i = 0; i < axes.size(); ++i) pp.point.params[axes[i].first] = axes[i].second[idx[i]];
    pp.id = pp.point.id();
    try {
      pp.work = bench.describe(pp.point);
    } catch (const InputError& e) {
      entry.fail(e.what());
    }
    pp.rule = rule;
    out.push_back(std::move(pp));
    std::size_t d = axes.size();
    while (d > 0) {
      --d;
      if (++idx[d] < axes[d].second.size()) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (axes.empty()) return;
  }
}

Sweep parse(const YamlReader& root, const std::string& target, const Registry& registry) {
  root.expect_map();
  root.check_keys({"name", "description", "settings", "benchmarks"});
  Sweep sweep;
  sweep.file = root.file();
  sweep.name = root.get_string("name");
  const StopRule base = root.has("settings") ? read_rule(root.child("settings"), StopRule{}) : StopRule{};
  const YamlReader list = root.child("benchmarks");
  if (!list.is_sequence() || list.size() == 0) list.fail("expected a non-empty list of benchmarks");
  for (std::size_t i = 0; i < list.size(); ++i) expand_benchmark(list.element(i), target, registry, base, sweep.points);
  std::set<std::string> seen;
  for (const auto& p : sweep.points)
    if (!seen.insert(p.id).second) root.fail("point '" + p.id + "' appears twice (duplicate axis values?)");
  return sweep;
}

}  // namespace

Sweep load_sweep(const std::string& path, const std::string& target, const Registry& registry) {
  return parse(YamlReader::load_file(path), target, registry);
}

Sweep parse_sweep(const std::string& yaml_text, const std::string& name, const std::string& target,
                  const Registry& registry) {
  return parse(YamlReader::load_string(yaml_text, name), target, registry);
}

std::size_t drop_unsupported(Sweep& sweep) {
  std::vector<PlannedPoint> kept;
  std::vector<std::pair<std::string, std::size_t>> reasons;  // first-seen order, then by count
  for (auto& p : sweep.points) {
    if (p.work.unsupported.empty()) {
      kept.push_back(std::move(p));
      continue;
    }
    auto it = std::find_if(reasons.begin(), reasons.end(), [&p](const auto& r) { return r.first == p.work.unsupported; });
    if (it == reasons.end()) reasons.emplace_back(p.work.unsupported, 1);
    else ++it->second;
  }
  sweep.points = std::move(kept);
  std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::size_t dropped = 0;
  for (const auto& [reason, n] : reasons) {
    sweep.skipped.push_back(std::to_string(n) + (n == 1 ? " point" : " points") + " skipped: " + reason);
    dropped += n;
  }
  return dropped;
}

std::vector<PlannedPoint> informative_order(std::vector<PlannedPoint> points) {
  // Group by benchmark in first-appearance order.
  std::vector<std::vector<PlannedPoint>> groups;
  std::vector<std::string> names;
  for (auto& p : points) {
    const std::string n = p.point.bench->name();
    auto it = std::find(names.begin(), names.end(), n);
    if (it == names.end()) {
      names.push_back(n);
      groups.emplace_back();
      it = names.end() - 1;
    }
    groups[static_cast<std::size_t>(it - names.begin())].push_back(std::move(p));
  }
  // Bit-reversed index order: 0, n/2, n/4, 3n/4, ... covers the range coarsely before filling in.
  for (auto& g : groups) {
    std::size_t bits = 0;
    while ((std::size_t{1} << bits) < g.size()) ++bits;
    std::vector<std::pair<std::size_t, std::size_t>> key;
    for (std::size_t i = 0; i < g.size(); ++i) {
      std::size_t r = 0;
      for (std::size_t b = 0; b < bits; ++b)
        if (i & (std::size_t{1} << b)) r |= std::size_t{1} << (bits - 1 - b);
      key.emplace_back(r, i);
    }
    std::sort(key.begin(), key.end());
    std::vector<PlannedPoint> ordered;
    for (const auto& k : key) ordered.push_back(std::move(g[k.second]));
    g = std::move(ordered);
  }
  std::vector<PlannedPoint> out;
  for (std::size_t round = 0, left = 1; left; ++round) {
    left = 0;
    for (auto& g : groups)
      if (round < g.size()) {
        out.push_back(std::move(g[round]));
        ++left;
      }
  }
  return out;
}

}  // namespace ptp::profile
