#pragma once
// The text of a torch.distributed.pipelining schedule CSV (DESIGN §2), read into rows of
// actions: one row per rank, one action per cell spelled `{stage}{KIND}{mb}` ("2F0", "1I3",
// "3SEND_F1", "0UNSHARD"), an empty cell is an idle slot, rows may differ in length. torch writes
// two forms: `compute_only` (F, B, I, W) and `compute_comms` (also SEND_F/RECV_F/SEND_B/RECV_B).
// A cell "(0F7;7B3)OVERLAP_F_B" (DualPipeV) holds actions that run overlapped.
//
// Kind encodings: current torch spells input-gradient `I`, weight-gradient `W` and full backward
// `B`. torch ≤ 2.5 spelled input-gradient `B` and full backward `BW`; a file with `BW` cells, or
// with `B` and `W` for the same stage and micro-batch (and no `I`), is read in that older encoding
// and a note says so.
//
// This is the file as written, in trace types. What the rows mean as a plan (which rank holds a
// stage, the programs, the peers of communication) is runtime's: runtime/plan/TorchCsv.h.

#include <string>
#include <string_view>
#include <vector>

#include "trace/OpKind.h"
#include "trace/Result.h"

namespace ps::trace::import {

enum class TorchCsvForm { ComputeOnly, ComputeComms };

// One action as it appears in the file. torch kinds with no OpKind (UNSHARD, RESHARD,
// REDUCE_GRAD) are kept as OpKind::OTHER with their spelling in `kindName`.
struct TorchCsvCellAction {
  OpKind kind = OpKind::F;
  int stage = -1;
  int microbatch = -1;  // -1 for the FSDP kinds, which name none
  // The first action of an overlap cell: it and the next action of the row run as one unit.
  bool overlapNext = false;
  std::string kindName;  // torch's spelling after encoding mapping, e.g. "F", "I", "UNSHARD"
  int line = 0;          // 1-based row in the file
  int cell = 0;          // 1-based cell in the row

  friend bool operator==(const TorchCsvCellAction&, const TorchCsvCellAction&) = default;
};

struct TorchCsvRows {
  // Every action of every row (rank), communication and FSDP kinds included, in file order.
  std::vector<std::vector<TorchCsvCellAction>> ranks;
  // ComputeComms as soon as one cell is a send or a receive.
  TorchCsvForm form = TorchCsvForm::ComputeOnly;
  bool legacyEncoding = false;  // torch ≤ 2.5 spelling (B = input-gradient, BW = full backward)
  std::vector<std::string> notes;  // things a person should know, e.g. the legacy encoding
};

// Reads CSV text; `sourceName` prefixes errors ("x.csv:3: cell 5 '2Q1': ..."). Refuses an empty
// file, a blank line between rows, a malformed cell and a file mixing the two encodings.
[[nodiscard]] Result<TorchCsvRows> parseTorchCsvRows(std::string_view text,
                                                     std::string_view sourceName);
// Reads a file (up to kMaxScheduleFileBytes) and parses it; errors name the path.
[[nodiscard]] Result<TorchCsvRows> readTorchCsvRows(const std::string& path);

}  // namespace ps::trace::import
