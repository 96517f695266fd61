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

}  // namespace ps::trace::import
