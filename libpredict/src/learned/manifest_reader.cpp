#include "manifest_reader.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <system_error>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::detail {

namespace {
// The training metrics are a fifth of the manifest and nothing at prediction time reads them: skipped,
// not built. `top_metrics` says whether the object had the key at its top level.
nlohmann::json parse_json(std::string_view text, bool* top_metrics = nullptr) {
  return nlohmann::json::parse(text.begin(), text.end(),
                               [top_metrics](int depth, nlohmann::json::parse_event_t event, nlohmann::json& j) {
                                 const bool metrics =
                                     depth == 1 && event == nlohmann::json::parse_event_t::key && j == "metrics";
                                 if (metrics && top_metrics) *top_metrics = true;
                                 return !metrics;
                               });
}

// The end of the JSON object or array opening at `at`, matching brackets outside strings; npos
// when it is not one (unbalanced, mismatched or unterminated). Its scalars are not checked: the
// value it spans is never read.
std::size_t skip_container(std::string_view t, std::size_t at) {
  std::string open;
  for (std::size_t i = at; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"') {
      for (++i; i < t.size() && t[i] != '"'; ++i)
        if (t[i] == '\\') ++i;
      if (i >= t.size()) return std::string_view::npos;
    } else if (c == '{' || c == '[') {
      open.push_back(c == '{' ? '}' : ']');
    } else if (c == '}' || c == ']') {
      if (open.empty() || open.back() != c) return std::string_view::npos;
      open.pop_back();
      if (open.empty()) return i + 1;
    } else if (open.empty()) {
      return std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

// Arrays of arrays of JSON numbers (RFC 8259 grammar and whitespace), from position `at`.
class PointsReader {
 public:
  PointsReader(std::string_view text, std::size_t at) : t_(text), i_(at) {}
  std::size_t at() const { return i_; }
  void ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t')) ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ >= t_.size() || t_[i_] != c) return false;
    ++i_;
    return true;
  }
  bool points(std::vector<std::vector<double>>& out) {
    return list([&] {
      // Every point has the first one's length: reserving it spares each a regrowth.
      out.emplace_back();
      if (out.size() > 1) out.back().reserve(out.front().size());
      return list([&] {
        double v = 0;
        if (!number(v)) return false;
        out.back().push_back(v);
        return true;
      });
    });
  }

 private:
  template <class F>
  bool list(F&& item) {
    if (!eat('[')) return false;
    if (eat(']')) return true;
    do {
      if (!item()) return false;
    } while (eat(','));
    return eat(']');
  }
  std::size_t digits() {
    std::size_t n = 0;
    for (; i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9'; ++i_) ++n;
    return n;
  }
  bool number(double& v) {
    ws();
    const std::size_t start = i_;
    if (i_ < t_.size() && t_[i_] == '-') ++i_;
    const std::size_t int_start = i_, int_digits = digits();
    if (int_digits == 0 || (int_digits > 1 && t_[int_start] == '0')) return false;
    bool integer = true;
    if (i_ < t_.size() && t_[i_] == '.') {
      ++i_;
      integer = false;
      if (digits() == 0) return false;
    }
    if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
      ++i_;
      integer = false;
      if (i_ < t_.size() && (t_[i_] == '+' || t_[i_] == '-')) ++i_;
      if (digits() == 0) return false;
    }
    const char *first = t_.data() + start, *last = t_.data() + i_;
    if (integer) {
      // nlohmann keeps an integer as one ("-0" is 0); a double holds one of up to 15 digits exactly.
      long long n = 0;
      if (int_digits > 15 || std::from_chars(first, last, n).ptr != last) return false;
      v = static_cast<double>(n);
      return true;
    }
    const auto r = std::from_chars(first, last, v);
    return r.ec == std::errc() && r.ptr == last;
  }

  std::string_view t_;
  std::size_t i_;
};
}  // namespace

namespace {

// The one occurrence of `"key":` in the text, and the position after its colon; npos when it is
// absent or there twice.
std::size_t only_key(std::string_view text, std::string_view quoted_key) {
  const std::size_t found = text.find(quoted_key);
  if (found == std::string_view::npos || text.find(quoted_key, found + 1) != std::string_view::npos)
    return std::string_view::npos;
  PointsReader reader(text, found + quoted_key.size());
  if (!reader.eat(':')) return std::string_view::npos;
  reader.ws();
  return reader.at();
}

// A stretch of the text replaced by an empty stand-in before nlohmann reads the rest.
struct Cut {
  std::size_t begin = 0, end = 0;
  const char* stand_in = "";
};

struct Cuts {
  std::vector<Cut> spans;  // in text order
  bool points = false, metrics = false;
  std::size_t bytes() const {
    std::size_t n = 0;
    for (const Cut& c : spans) n += c.end - c.begin;
    return n;
  }
};

// support.points (read with from_chars into `points`) and the top-level metrics (skipped), when
// each stands where it is expected to.
Cuts cuts_of(std::string_view text, std::vector<std::vector<double>>& points) {
  Cuts cuts;
  const std::size_t points_at = only_key(text, "\"points\"");
  if (points_at != std::string_view::npos) {
    PointsReader reader(text, points_at);
    if (reader.points(points)) cuts.spans.push_back({points_at, reader.at(), "[]"}), cuts.points = true;
  }
  const std::size_t metrics_at = only_key(text, "\"metrics\"");
  if (metrics_at != std::string_view::npos) {
    const std::size_t end = skip_container(text, metrics_at);
    if (end != std::string_view::npos) cuts.spans.push_back({metrics_at, end, "null"}), cuts.metrics = true;
  }
  auto& spans = cuts.spans;
  std::sort(spans.begin(), spans.end(), [](const Cut& a, const Cut& b) { return a.begin < b.begin; });
  if (spans.size() == 2 && spans[0].end > spans[1].begin) return {};  // one inside the other: read it all
  return cuts;
}

}  // namespace

ParsedManifest parse_manifest(std::string_view text) {
  ParsedManifest out;
  std::vector<std::vector<double>> points;
  const Cuts cuts = cuts_of(text, points);
  if (!cuts.spans.empty()) {
    std::string rest;
    rest.reserve(text.size() - cuts.bytes() + 8);
    std::size_t from = 0;
    for (const Cut& c : cuts.spans) {
      rest.append(text.substr(from, c.begin - from)).append(c.stand_in);
      from = c.end;
    }
    rest.append(text.substr(from));
    try {
      bool top_metrics = false;
      nlohmann::json j = parse_json(rest, &top_metrics);
      // Each cut must have been what it stands for: support.points (now the one empty array there)
      // and the top level's metrics.
      const bool points_ok = !cuts.points || (j.is_object() && j.contains("support") && j.at("support").is_object() &&
                                             j.at("support").contains("points") &&
                                             j.at("support").at("points") == nlohmann::json::array());
      if (points_ok && (!cuts.metrics || top_metrics)) {
        out.json = std::move(j);
        if (cuts.points) out.points = std::move(points);
        return out;
      }
    } catch (const nlohmann::json::exception&) {
      // the whole text below says what is wrong, where
    }
  }
  out.json = parse_json(text);
  return out;
}

}  // namespace ptp::predict::detail
