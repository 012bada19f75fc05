// InputError, the one-line error every tool prints: its message and the parts a caller reads back
// (the Python package's JobSpecError carries them).
#include <catch2/catch.hpp>

#include "ptp/vocab/error.hpp"

using namespace ptp::vocab;

TEST_CASE("an input error says file:line:column: field: problem and keeps each part", "[error]") {
  const InputError e("job.yaml", 3, 13, "batch_size", "value -4 out of range");
  CHECK(std::string(e.what()) == "job.yaml:3:13: batch_size: value -4 out of range");
  CHECK(e.file() == "job.yaml");
  CHECK(e.line() == 3);
  CHECK(e.column() == 13);
  CHECK(e.field() == "batch_size");
  CHECK(e.problem() == "value -4 out of range");
}

TEST_CASE("a column without a line is not kept, and a message alone has no parts", "[error]") {
  const InputError no_line("measured.csv", 0, 7, "", "empty file");
  CHECK(std::string(no_line.what()) == "measured.csv: empty file");
  CHECK(no_line.column() == 0);
  const InputError plain("--threads must be between 1 and 256");
  CHECK(plain.file().empty());
  CHECK(plain.line() == 0);
  CHECK(plain.column() == 0);
}

TEST_CASE("an input error is one line", "[error]") {
  const InputError e("a\nb.yaml", 1, 1, "model", "name \"x\ny\"");
  CHECK(std::string(e.what()).find('\n') == std::string::npos);
}
