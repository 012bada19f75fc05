#include <catch2/catch.hpp>

#include "ptp/profile/columns.hpp"
#include "ptp/profile/row_writer.hpp"
#include "ptp/vocab/csv.hpp"
#include "ptp/vocab/dataset_schema.hpp"
#include "ptp/vocab/error.hpp"
#include "test_helpers.hpp"

using namespace ptp::profile;

TEST_CASE("output headers start with the dataset schema in order", "[schema]") {
  for (Table t : {Table::ops, Table::collectives}) {
    const auto schema = (t == Table::ops ? ptp::vocab::ops_schema() : ptp::vocab::collectives_schema()).column_names();
    const auto header = output_header(t);
    REQUIRE(header.size() > schema.size());
    CHECK(std::equal(schema.begin(), schema.end(), header.begin()));
    for (std::size_t i = schema.size(); i < header.size(); ++i)  // extras never shadow schema columns
      CHECK(std::find(schema.begin(), schema.end(), header[i]) == schema.end());
  }
}

TEST_CASE("rows are appended whole and read back by the vocab CSV reader", "[schema]") {
  const auto dir = ptp_test::temp_dir("writer");
  const std::string path = (dir / "o.ops.csv").string();
  const auto header = output_header(Table::ops);
  {
    RowWriter w(path, header, false);
    w.append({{"point_id", "a"}, {"notes", "comma, \"quote\"\nnewline"}, {"status", "ok"}});
    w.append({{"point_id", "b"}, {"status", "failed"}, {"reason", "out of memory"}});
    CHECK_THROWS_AS(w.append({{"no_such_column", "x"}}), std::logic_error);
  }
  const auto table = ptp::vocab::CsvTable::read_file(path);
  table.require_columns(ptp::vocab::ops_schema().required_names());
  REQUIRE(table.rows().size() == 2);
  CHECK(table.text(table.rows()[0], "notes") == "comma, \"quote\"\nnewline");
  CHECK(table.text(table.rows()[1], "reason") == "out of memory");
  CHECK(read_point_ids(path) == std::set<std::string>{"a", "b"});
}

TEST_CASE("existing output needs --resume, and a torn tail is dropped on resume", "[schema]") {
  const auto dir = ptp_test::temp_dir("resume");
  const std::string path = (dir / "o.ops.csv").string();
  const auto header = output_header(Table::ops);
  { RowWriter(path, header, false).append({{"point_id", "a"}, {"status", "ok"}}); }
  CHECK_THROWS_WITH(RowWriter(path, header, false), Catch::Contains("--resume"));
  ptp_test::write_text(path, ptp_test::read_text(path) + "b,ptp-profile,tor");  // a torn last line
  {
    RowWriter w(path, header, true);
    CHECK(w.existing_ids() == std::set<std::string>{"a"});
    w.append({{"point_id", "c"}, {"status", "ok"}});
  }
  CHECK(read_point_ids(path) == std::set<std::string>{"a", "c"});
  auto other = header;
  other.push_back("zzz");
  CHECK_THROWS_WITH(RowWriter(path, other, true), Catch::Contains("header differs"));
}
