#include "manifest_reader.hpp"

#include <charconv>
#include <system_error>

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::detail {

namespace {
// The training metrics are half the manifest and nothing at prediction time reads them: skipped, not built.
nlohmann::json parse_json(const std::string& text) {
  return nlohmann::json::parse(text, [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& j) {
    return !(depth == 1 && event == nlohmann::json::parse_event_t::key && j == "metrics");
  });
}

// Arrays of arrays of JSON numbers (RFC 8259 grammar and whitespace), from position `at`.
class PointsReader {
 public:
  PointsReader(const std::string& text, std::size_t at) : t_(text), i_(at) {}
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
      out.emplace_back();
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

  const std::string& t_;
  std::size_t i_;
};
}  // namespace

ParsedManifest parse_manifest(const std::string& text) {
  ParsedManifest out;
  const std::string key = "\"points\"";
  const std::size_t found = text.find(key);
  if (found != std::string::npos && text.find(key, found + 1) == std::string::npos) {
    PointsReader reader(text, found + key.size());
    std::vector<std::vector<double>> points;
    if (reader.eat(':')) {
      reader.ws();
      const std::size_t begin = reader.at();
      if (reader.points(points)) {
        try {
          nlohmann::json j = parse_json(text.substr(0, begin) + "[]" + text.substr(reader.at()));
          // The cut must have been support.points (now the one empty array there).
          if (j.is_object() && j.contains("support") && j.at("support").is_object() &&
              j.at("support").contains("points") && j.at("support").at("points") == nlohmann::json::array()) {
            out.json = std::move(j);
            out.points = std::move(points);
            return out;
          }
        } catch (const nlohmann::json::exception&) {
          // the whole text below says what is wrong, where
        }
      }
    }
  }
  out.json = parse_json(text);
  return out;
}

}  // namespace ptp::predict::detail
