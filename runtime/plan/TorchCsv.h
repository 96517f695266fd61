#pragma once
// A torch.distributed.pipelining schedule CSV as a plan (DESIGN §2). The file's text (rows,
// cells, kind encodings, the form) is read by trace/import/torchcsv/TorchCsvRows.h, next to the
// format's import entry; this side turns those rows into a Plan (placement inferred as torch
// does, the compute programs, the peers of communication actions) and writes plans back.

#include <string>
#include <string_view>
#include <vector>

#include "runtime/plan/Plan.h"
#include "trace/Result.h"
#include "trace/import/torchcsv/TorchCsvRows.h"

namespace ps::runtime {

using trace::import::TorchCsvForm;

// One action as it appears in the file (trace::import::TorchCsvCellAction as a plan Action, with
// the peer of a communication action). torch kinds with no OpKind (UNSHARD, RESHARD, REDUCE_GRAD)
// are kept as OpKind::OTHER with their spelling in `kindName`.
struct TorchCsvAction {
  Action action;
  std::string kindName;  // torch's spelling after encoding mapping, e.g. "F", "I", "UNSHARD"
  int line = 0;          // 1-based row in the file
  int cell = 0;          // 1-based cell in the row

  friend bool operator==(const TorchCsvAction&, const TorchCsvAction&) = default;
};

struct TorchCsvSchedule {
  // Every action of every row, communication and FSDP kinds included, in file order.
  std::vector<std::vector<TorchCsvAction>> rankActions;
  // The plan built from the compute actions: placement inferred as torch does (a stage lives
  // on the rank whose row holds its forward), one layer per stage, schedule "custom".
  Plan plan;
  TorchCsvForm form = TorchCsvForm::ComputeOnly;
  bool legacyEncoding = false;  // torch ≤ 2.5 spelling (B = input-gradient, BW = full backward)
  std::vector<std::string> notes;  // things a person should know, e.g. the legacy encoding
};

// Parses CSV text; `sourceName` prefixes errors ("x.csv:3: cell 5 '2Q1': ...").
[[nodiscard]] Result<TorchCsvSchedule> parseTorchCsv(std::string_view text,
                                                     std::string_view sourceName);
// Reads and parses a file.
[[nodiscard]] Result<TorchCsvSchedule> readTorchCsv(const std::string& path);
// The schedule of rows already read (trace::import::parseTorchCsvRows); errors name `sourceName`.
[[nodiscard]] Result<TorchCsvSchedule> torchCsvSchedule(trace::import::TorchCsvRows rows,
                                                        std::string_view sourceName);

// The `compute_only` form of a plan's programs. torch has one step per file, one replica (a
// bidirectional plan does not read back) and no spelling for R, OPT or FILL (recompute is
// implicit in its backward), so only step-0 F/B/I/W are written.
[[nodiscard]] std::string writeTorchCsvComputeOnly(const Plan& plan);
// The `compute_comms` form of lowered programs (see Lowering.h); every action is written.
[[nodiscard]] std::string writeTorchCsvComms(const std::vector<std::vector<Action>>& programs);
// Writes text to a file; the error names the path.
[[nodiscard]] Status writeTorchCsvFile(const std::string& path, std::string_view text);

// One cell's spelling of a run of actions: "2F0", or "(0F7;7B3)OVERLAP_F_B" for an overlap unit.
std::string torchCellText(const std::vector<Action>& unit);

}  // namespace ps::runtime
