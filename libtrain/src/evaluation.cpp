#include "ptp/train/evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <thread>

#include "ptp/predict/learned/sha256.hpp"

#include "ptp/train/vocabulary.hpp"

namespace ptp::train {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * (static_cast<double>(v.size()) - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

ErrorStats error_stats(const std::vector<double>& ape) {
  ErrorStats s;
  s.n = static_cast<int>(ape.size());
  if (ape.empty()) return s;
  double sum = 0;
  for (double a : ape) sum += a;
  s.mape = sum / static_cast<double>(ape.size());
  s.median_ape = quantile(ape, 0.5);
  return s;
}

nlohmann::json to_json(const ErrorStats& s) {
  auto r = [](double v) { return std::round(v * 100) / 100; };
  return {{"n", s.n}, {"mape", r(s.mape)}, {"median_ape", r(s.median_ape)}};
}

nlohmann::json grouped_stats(const std::vector<double>& ape, const std::vector<std::string>& labels) {
  std::map<std::string, std::vector<double>> groups;
  for (std::size_t i = 0; i < ape.size(); ++i) groups[labels[i]].push_back(ape[i]);
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [label, values] : groups) out[label] = to_json(error_stats(values));
  return out;
}

Split kfold_split(const std::vector<std::string>& keys, int k) {
  Split s{"kfold", {}, k};
  for (const auto& key : keys) {
    const std::string h = sha256_hex(key).substr(0, 8);
    s.fold.push_back(static_cast<int>(std::stoul(h, nullptr, 16) % static_cast<unsigned long>(k)));
  }
  return s;
}

Split group_split(const std::string& name, const std::vector<std::string>& groups, std::size_t min_rows) {
  std::map<std::string, std::size_t> rows;
  for (const auto& g : groups) ++rows[g];
  std::map<std::string, int> ids;
  int next = 0;
  for (const auto& [g, n] : rows) ids[g] = n >= min_rows ? next++ : -1;
  Split s{name, {}, next};
  for (const auto& g : groups) s.fold.push_back(ids[g]);
  return s;
}

Split scale_split(const std::vector<int>& num_gpus, int max_train_gpus) {
  Split s{"leave_one_scale_out", {}, 1};
  for (int n : num_gpus) s.fold.push_back(n > max_train_gpus ? 0 : -1);
  return s;
}

void for_each_fold(const Split& split, std::size_t rows, int workers,
                   const std::function<void(const std::vector<std::size_t>&, const std::vector<std::size_t>&)>& fold) {
  workers = std::max(1, workers);
  auto run_folds = [&](int first) {
    for (int f = first; f < split.folds; f += workers) {
      std::vector<std::size_t> train, test;
      for (std::size_t i = 0; i < rows; ++i) (split.fold[i] == f ? test : train).push_back(i);
      if (test.empty() || train.size() < 20) continue;
      fold(train, test);
    }
  };
  std::vector<std::thread> threads;
  for (int w = 1; w < workers; ++w) threads.emplace_back(run_folds, w);
  run_folds(0);
  for (auto& t : threads) t.join();
}

std::string scatter_svg(const std::vector<double>& measured, const std::vector<double>& predicted,
                        const std::vector<std::string>& groups, const std::string& title) {
  const double W = 640, H = 640, M = 60;
  double lo = 1e30, hi = -1e30;
  for (std::size_t i = 0; i < measured.size(); ++i)
    for (double v : {measured[i], predicted[i]})
      if (v > 0) lo = std::min(lo, std::log10(v)), hi = std::max(hi, std::log10(v));
  if (lo >= hi) lo = -3, hi = 1;
  lo = std::floor(lo), hi = std::ceil(hi);
  auto x = [&](double v) { return M + (std::log10(v) - lo) / (hi - lo) * (W - 2 * M); };
  auto y = [&](double v) { return H - M - (std::log10(v) - lo) / (hi - lo) * (H - 2 * M); };
  static const char* palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  std::set<std::string> names(groups.begin(), groups.end());
  std::map<std::string, const char*> colour;
  int c = 0;
  for (const auto& n : names) colour[n] = palette[c++ % 8];
  std::string s;
  char buf[256];
  std::snprintf(buf, sizeof buf, "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' font-family='sans-serif' font-size='12'>\n", W, H);
  s += buf;
  s += "<rect width='100%' height='100%' fill='white'/>\n";
  std::snprintf(buf, sizeof buf, "<text x='%.0f' y='24' text-anchor='middle' font-size='14'>%s</text>\n", W / 2, title.c_str());
  s += buf;
  for (double d = lo; d <= hi; d += 1) {
    const double v = std::pow(10, d);
    std::snprintf(buf, sizeof buf,
                  "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/><line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/>\n"
                  "<text x='%.1f' y='%.1f' text-anchor='middle'>1e%.0f</text><text x='%.1f' y='%.1f' text-anchor='end'>1e%.0f</text>\n",
                  x(v), M, x(v), H - M, M, y(v), W - M, y(v), x(v), H - M + 16, d, M - 6, y(v) + 4, d);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='black' stroke-dasharray='4'/>\n",
                x(std::pow(10, lo)), y(std::pow(10, lo)), x(std::pow(10, hi)), y(std::pow(10, hi)));
  s += buf;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    if (measured[i] <= 0 || predicted[i] <= 0) continue;
    std::snprintf(buf, sizeof buf, "<circle cx='%.1f' cy='%.1f' r='2.5' fill='%s' fill-opacity='0.6'/>\n", x(measured[i]),
                  y(predicted[i]), colour[groups[i]]);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "<text x='%.0f' y='%.0f' text-anchor='middle'>measured step time (s)</text>\n", W / 2, H - 20);
  s += buf;
  std::snprintf(buf, sizeof buf, "<text x='18' y='%.0f' transform='rotate(-90 18 %.0f)' text-anchor='middle'>predicted step time (s)</text>\n", H / 2, H / 2);
  s += buf;
  int row = 0;
  for (const auto& [name, col] : colour) {
    std::snprintf(buf, sizeof buf, "<circle cx='%.0f' cy='%d' r='4' fill='%s'/><text x='%.0f' y='%d'>%s</text>\n", M + 10,
                  50 + 16 * row, col, M + 18, 54 + 16 * row, name.c_str());
    s += buf;
    ++row;
  }
  return s + "</svg>\n";
}

}  // namespace ptp::train
