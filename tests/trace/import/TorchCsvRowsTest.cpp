// The torch pipelining CSV's text parser (trace/import/torchcsv), alone: rows and cells in trace
// types, before any plan is built (that is runtime's, tests/runtime/plan/TorchCsvTest.cpp). Links
// ps_trace only.

#include "trace/import/torchcsv/TorchCsvRows.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ps::trace::import {
namespace {

std::vector<std::string> kindNames(const std::vector<TorchCsvCellAction>& row) {
  std::vector<std::string> out;
  for (const auto& a : row)
    out.push_back(std::to_string(a.stage) + a.kindName +
                  (a.microbatch >= 0 ? std::to_string(a.microbatch) : ""));
  return out;
}

TEST(TorchCsvRows, RowsAreRanksAndEmptyCellsAreIdleSlots) {
  auto r = parseTorchCsvRows("0F0,0F1,0B0,0B1\n,1F0,1B0,1F1,1B1\n", "x.csv");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->ranks.size(), 2u);
  EXPECT_EQ(kindNames(r->ranks[0]), (std::vector<std::string>{"0F0", "0F1", "0B0", "0B1"}));
  EXPECT_EQ(kindNames(r->ranks[1]), (std::vector<std::string>{"1F0", "1B0", "1F1", "1B1"}));
  const TorchCsvCellAction& first = r->ranks[1].front();
  EXPECT_EQ(first.kind, OpKind::F);
  EXPECT_EQ(first.stage, 1);
  EXPECT_EQ(first.microbatch, 0);
  EXPECT_EQ(first.line, 2);
  EXPECT_EQ(first.cell, 2);  // cell 1 is the idle slot
  EXPECT_EQ(r->form, TorchCsvForm::ComputeOnly);
  EXPECT_FALSE(r->legacyEncoding);
  EXPECT_TRUE(r->notes.empty());
}

TEST(TorchCsvRows, CrLfCrAndQuotesAndSpaces) {
  // "\r\n", "\r" and "\n" each end a row; quotes and blanks around a cell are not part of it, and
  // a comma inside quotes does not split.
  auto r = parseTorchCsvRows("\"0F0\", 0B0\r\n1F0,1B0\r2F0,\"2B0\"\n", "x.csv");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->ranks.size(), 3u);
  EXPECT_EQ(kindNames(r->ranks[0]), (std::vector<std::string>{"0F0", "0B0"}));
  EXPECT_EQ(kindNames(r->ranks[1]), (std::vector<std::string>{"1F0", "1B0"}));
  EXPECT_EQ(kindNames(r->ranks[2]), (std::vector<std::string>{"2F0", "2B0"}));
  EXPECT_EQ(r->ranks[2][1].line, 3);
  EXPECT_EQ(r->ranks[2][1].cell, 2);

  auto quotedComma = parseTorchCsvRows("\"0F0,0F1\"\n", "q.csv");
  ASSERT_FALSE(quotedComma);
  EXPECT_EQ(quotedComma.error(), "q.csv:1: cell 1 '0F0,0F1': unexpected ',0F1' after '0F0'");
}

TEST(TorchCsvRows, TrailingBlankLinesAreDroppedAndInnerOnesRefused) {
  auto trailing = parseTorchCsvRows("0F0\n1F0\n\n \n", "t.csv");
  ASSERT_TRUE(trailing) << trailing.error();
  EXPECT_EQ(trailing->ranks.size(), 2u);
  auto inner = parseTorchCsvRows("0F0,0B0\n\n,1F0,1B0\n", "t.csv");
  ASSERT_FALSE(inner);
  EXPECT_EQ(inner.error(),
            "t.csv:2: blank line between ranks (rows are ranks: remove it, or write a rank with "
            "no actions as a comma)");
  auto empty = parseTorchCsvRows("", "e.csv");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error(), "e.csv: empty file (expected one row of actions per rank)");
}

TEST(TorchCsvRows, OverlapCellChainsItsTwoActions) {
  auto r = parseTorchCsvRows("0F0,0F1,(0F2;0B0)OVERLAP_F_B,0B1\n", "x.csv");
  ASSERT_TRUE(r) << r.error();
  const auto& row = r->ranks[0];
  EXPECT_EQ(kindNames(row), (std::vector<std::string>{"0F0", "0F1", "0F2", "0B0", "0B1"}));
  EXPECT_TRUE(row[2].overlapNext);
  EXPECT_FALSE(row[3].overlapNext);
  EXPECT_EQ(row[2].cell, 3);
  EXPECT_EQ(row[3].cell, 3);  // both actions of the overlap are cell 3
  EXPECT_EQ(row[4].cell, 4);
}

TEST(TorchCsvRows, CommunicationMakesTheCommsFormAndFsdpKindsStayOther) {
  auto r = parseTorchCsvRows("0UNSHARD,0F0,0SEND_F0\n1RECV_F0,1F0,1REDUCE_GRAD\n", "c.csv");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->form, TorchCsvForm::ComputeComms);
  EXPECT_EQ(r->ranks[0][0].kind, OpKind::OTHER);
  EXPECT_EQ(r->ranks[0][0].kindName, "UNSHARD");
  EXPECT_EQ(r->ranks[0][0].microbatch, -1);
  EXPECT_EQ(r->ranks[0][2].kind, OpKind::SEND_F);
  EXPECT_EQ(r->ranks[1][0].kind, OpKind::RECV_F);
  EXPECT_EQ(r->ranks[1][2].kindName, "REDUCE_GRAD");
  // No plan is built here: a file of FSDP work only is rows (runtime refuses it as a plan).
  auto fsdpOnly = parseTorchCsvRows(",,\n0UNSHARD\n", "i.csv");
  ASSERT_TRUE(fsdpOnly) << fsdpOnly.error();
  EXPECT_TRUE(fsdpOnly->ranks[0].empty());
  EXPECT_EQ(fsdpOnly->ranks[1].size(), 1u);
}

TEST(TorchCsvRows, LegacyEncodingIsMappedWithANote) {
  auto bw = parseTorchCsvRows("0F0,0BW0\n", "old.csv");
  ASSERT_TRUE(bw) << bw.error();
  EXPECT_TRUE(bw->legacyEncoding);
  EXPECT_EQ(bw->ranks[0][1].kind, OpKind::B);
  EXPECT_EQ(bw->ranks[0][1].kindName, "B");
  ASSERT_EQ(bw->notes.size(), 1u);
  EXPECT_EQ(bw->notes[0],
            "old.csv: read in torch's older encoding (B = input-gradient, BW = full backward, as "
            "torch <= 2.5 wrote); mapped to I and B");

  // B and W of one stage and micro-batch, and no I: B is the older input-gradient.
  auto bAndW = parseTorchCsvRows("0F0,0B0,0W0\n", "old.csv");
  ASSERT_TRUE(bAndW) << bAndW.error();
  EXPECT_TRUE(bAndW->legacyEncoding);
  EXPECT_EQ(kindNames(bAndW->ranks[0]), (std::vector<std::string>{"0F0", "0I0", "0W0"}));
  EXPECT_EQ(bAndW->ranks[0][1].kind, OpKind::I);

  auto current = parseTorchCsvRows("0F0,0I0,0W0,0F1,0B1\n", "new.csv");
  ASSERT_TRUE(current) << current.error();
  EXPECT_FALSE(current->legacyEncoding);
  EXPECT_EQ(current->ranks[0][4].kind, OpKind::B);
}

TEST(TorchCsvRows, ErrorsNameFileLineAndCell) {
  auto unknown = parseTorchCsvRows("0F0,0B0\n1F0,,,,2Q1\n", "x.csv");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error(),
            "x.csv:2: cell 5 '2Q1': unknown action kind 'Q' (expected F, B, I, W, BW, SEND_F, "
            "RECV_F, SEND_B, RECV_B, UNSHARD, RESHARD, REDUCE_GRAD)");
  auto mixed = parseTorchCsvRows("0F0,0BW0,0F1,0I1,0W1\n", "mix.csv");
  ASSERT_FALSE(mixed);
  EXPECT_EQ(mixed.error(),
            "mix.csv:1: cell 2: 'BW' (torch's older full backward) in a file that also uses 'I' "
            "(the newer input-gradient, mix.csv:1: cell 4); a file uses one encoding");
  auto overlap = parseTorchCsvRows("0F0,(0F0;0SEND_F0)OVERLAP_F_B\n", "y.csv");
  ASSERT_FALSE(overlap);
  EXPECT_EQ(overlap.error(),
            "y.csv:1: cell 2 '(0F0;0SEND_F0)OVERLAP_F_B': only compute actions (F, B, I, W) can "
            "overlap, not '0SEND_F0'");
  auto large = parseTorchCsvRows("0F0,99999999999F0\n", "z.csv");
  ASSERT_FALSE(large);
  EXPECT_EQ(large.error(), "z.csv:1: cell 2 '99999999999F0': stage number too large");
}

TEST(TorchCsvRows, AMissingFileNamesThePath) {
  auto r = readTorchCsvRows("/nonexistent/dir/p.csv");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("/nonexistent/dir/p.csv"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace ps::trace::import
