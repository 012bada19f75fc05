// --format jsonl: one compact object per line. Per job or sweep row (an unreadable job file's row
// carries its error), or per ranked search row with the row's place in the search under "search".
#include "printers.hpp"
#include "search_cells.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict::printers {

namespace {

class JsonlPrinter final : public Printer {
 public:
  std::string predictions(const std::vector<SweepRow>& rows, bool) const override { return render_jsonl(rows); }

  std::string search(const SearchResult& r) const override {
    std::string out;
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
      auto j = prediction_json(r.rows[i].prediction);
      j["search"] = search_cells::row_json(r, i);
      out += j.dump() + "\n";
    }
    return out;
  }
};

}  // namespace

const Printer& jsonl() {
  static const JsonlPrinter printer;
  return printer;
}

}  // namespace ptp::predict::printers
