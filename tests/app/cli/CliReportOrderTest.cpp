// The communication-order doctor (issue 36 §2) end to end: ZB-H1's schedule exported as a
// torch CSV, rank 1's weight-gradient ops moved to the end of its row (as a hand-written
// schedule might hold them back), simulated from the file. The report gives rank 1 `order` idle
// time (`order_ns`), names the W to run earlier and re-simulates the move's gain; the generator's
// own schedule has none; an import of the same run (Chrome JSON) gets the same advice.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/app/CliTestUtil.h"
#include "tests/common/TestUtil.h"

namespace ps {
namespace {

using test::cli;
using test::TempDir;
using ::testing::HasSubstr;

// The CSV with row `rank`'s W cells moved after its other actions.
void holdWeightGradientsBack(const std::string& in, const std::string& out, int rank) {
  std::ifstream file(in);
  std::vector<std::string> rows;
  for (std::string row; std::getline(file, row);)
    rows.push_back(row);
  ASSERT_GT(rows.size(), static_cast<std::size_t>(rank));
  std::stringstream cells(rows[static_cast<std::size_t>(rank)]);
  std::string kept, held;
  for (std::string cell; std::getline(cells, cell, ',');) {
    if (cell.empty()) continue;
    std::string& into = cell.find('W') != std::string::npos ? held : kept;
    into += (into.empty() ? "" : ",") + cell;
  }
  rows[static_cast<std::size_t>(rank)] = kept + "," + held;
  std::ofstream o(out);
  for (const auto& row : rows)
    o << row << '\n';
}

struct OrderJson {
  std::int64_t orderNs = -1;
  std::int64_t rank1OrderNs = -1;
  std::vector<std::string> moves;  // "rank move before gain_ns gain_from"
};

OrderJson orderOf(const std::string& db) {
  const auto json = cli({"report", db, "--json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  OrderJson out;
  if (parser.parse(json.out).get(doc) != simdjson::SUCCESS) return out;
  out.orderNs = int64_t(doc["bubble_breakdown"]["order_ns"]);
  for (simdjson::dom::element r : doc["ranks"].get_array())
    if (int64_t(r["rank"]) == 1) out.rank1OrderNs = int64_t(r["bubble_breakdown"]["order_ns"]);
  for (simdjson::dom::element m : doc["order_moves"].get_array())
    out.moves.push_back(
        std::to_string(int64_t(m["rank"])) + " " + std::string(std::string_view(m["move"])) + " " +
        std::string(std::string_view(m["before"])) + " " + std::to_string(int64_t(m["gain_ns"])) +
        " " + std::string(std::string_view(m["gain_from"])));
  return out;
}

TEST(CliReportOrder, WeightGradientsHeldBackAreNamedAndTheMoveIsResimulated) {
  TempDir dir;
  const std::string zb = dir.file("zb.sqlite"), csv = dir.file("zb.csv"),
                    held = dir.file("held.csv"), run = dir.file("held.sqlite");
  ASSERT_EQ(cli({"sim", "--schedule", "zb-h1", "--stages", "4", "--microbatches", "8", "--db", zb})
                .exit_code,
            0);
  const OrderJson plain = orderOf(zb);
  EXPECT_EQ(plain.orderNs, 0) << "the generator's schedule waits on no order";
  EXPECT_TRUE(plain.moves.empty());

  ASSERT_EQ(cli({"export", "torch-csv", zb, "--out", csv}).exit_code, 0);
  holdWeightGradientsBack(csv, held, 1);
  const auto sim =
      cli({"sim", "--schedule-file", held, "--stages", "4", "--microbatches", "8", "--db", run});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const auto text = cli({"report", run});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("order waits: a rank waited while another of its ops was ready"));
  EXPECT_THAT(text.out, HasSubstr("  rank 1  order 600.000 µs  move 1W0 before 1I1 (step 0): "
                                  "-100.000 µs a step  (re-simulated)\n"));
  const OrderJson order = orderOf(run);
  EXPECT_EQ(order.orderNs, 600000);
  EXPECT_EQ(order.rank1OrderNs, 600000) << "rank 1's alone";
  ASSERT_EQ(order.moves.size(), 1u);
  EXPECT_EQ(order.moves[0], "1 1W0 1I1 100000 simulation");

  // Imported (the same run through Chrome JSON): the same order time and, with the plan fitted
  // to it, the same re-simulated move.
  const std::string chrome = dir.file("held.json"), imported = dir.file("imported.sqlite");
  ASSERT_EQ(cli({"export", "chrome", run, "--out", chrome}).exit_code, 0);
  ASSERT_EQ(cli({"import", "kineto", chrome, "--db", imported}).exit_code, 0);
  const OrderJson again = orderOf(imported);
  EXPECT_EQ(again.orderNs, 600000);
  ASSERT_EQ(again.moves.size(), 1u);
  EXPECT_EQ(again.moves[0], "1 1W0 1I1 100000 simulation");
}

}  // namespace
}  // namespace ps
