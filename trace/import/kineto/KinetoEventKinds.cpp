// What a traceEvents element's "ph" and "cat" say (KinetoEvent.h), apart from the JSON layer.

#include "trace/OpKind.h"
#include "trace/import/kineto/KinetoEvent.h"

namespace ps::trace::import {
namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != b[i]) return false;
  }
  return true;
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool isUpper(char c) {
  return c >= 'A' && c <= 'Z';
}

// An autograd graph node as the autograd profiler names it: "AddmmBackward0", "MmBackward".
bool isAutogradNode(std::string_view name) {
  if (name.empty() || !isUpper(name.front())) return false;
  while (!name.empty() && name.back() >= '0' && name.back() <= '9')
    name.remove_suffix(1);
  constexpr std::string_view kBackward = "Backward";
  if (name.size() <= kBackward.size() || name.substr(name.size() - kBackward.size()) != kBackward)
    return false;
  for (const char c : name)
    if (!(isUpper(c) || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

KinetoPhase kinetoPhaseOf(std::string_view ph) {
  if (ph.size() != 1) return KinetoPhase::Other;
  switch (ph[0]) {
    case 'X':
      return KinetoPhase::Complete;
    case 'B':
      return KinetoPhase::Begin;
    case 'E':
      return KinetoPhase::End;
    case 'i':
    case 'I':
      return KinetoPhase::Instant;
    case 'C':
      return KinetoPhase::Counter;
    default:
      return KinetoPhase::Other;
  }
}

// Modern Kineto spells categories in lower case; 2021-era files used "Kernel", "Memcpy",
// "Operator".
KinetoCategory kinetoCategoryOf(std::string_view cat) {
  switch (cat.size()) {
    case 6:
      if (equalsIgnoreCase(cat, "kernel")) return KinetoCategory::Kernel;
      if (cat == "cpu_op") return KinetoCategory::CpuOp;
      if (equalsIgnoreCase(cat, "memcpy")) return KinetoCategory::Memcpy;
      if (equalsIgnoreCase(cat, "memset")) return KinetoCategory::Memset;
      break;
    case 8:
      if (equalsIgnoreCase(cat, "operator")) return KinetoCategory::CpuOp;
      break;
    case 10:
      if (cat == "gpu_memcpy") return KinetoCategory::Memcpy;
      if (cat == "gpu_memset") return KinetoCategory::Memset;
      break;
    case 11:
      if (cat == "cuda_driver") return KinetoCategory::Launch;
      break;
    case 12:
      if (cat == "cuda_runtime") return KinetoCategory::Launch;
      break;
    case 15:
      if (cat == "user_annotation") return KinetoCategory::UserAnnotation;
      break;
    case 19:
      if (cat == "gpu_user_annotation") return KinetoCategory::GpuUserAnnotation;
      break;
    default:
      break;
  }
  // PipeScope's own export files each op under its kind's name.
  if (cat.size() <= 7 && parseOpKind(cat)) return KinetoCategory::StatedOp;
  return KinetoCategory::Other;
}

// The autograd profiler's own export writes no "cat": its ranges are the user's labels and the
// framework's own work alike. What Kineto would file as cpu_op (ATen and TorchScript ops, autograd
// nodes and engine calls, profiler and c10d bookkeeping) is a CPU op, the CUDA / HIP runtime and
// driver calls are launches (a correlation id, when the file has one, links them to their GPU
// work); anything else is a label. c10d's calls stay labels: in such a file they are the transfers
// (NestedTransfers folds them into a labelled one).
KinetoCategory kinetoCategoryOfUncategorised(std::string_view name) {
  for (const std::string_view prefix :
       {"aten::", "autograd::", "torch::", "prim::", "profiler::", "c10::"})
    if (startsWith(name, prefix)) return KinetoCategory::CpuOp;
  if (isAutogradNode(name) || name == "record_param_comms") return KinetoCategory::CpuOp;
  for (const std::string_view prefix : {"cuda", "cu", "hip"})
    if (name.size() > prefix.size() && startsWith(name, prefix) && isUpper(name[prefix.size()]))
      return KinetoCategory::Launch;
  return KinetoCategory::Missing;
}

}  // namespace ps::trace::import
