#include "trace/import/nsys/NsysProcess.h"

#include <algorithm>
#include <string>

#include "trace/import/nsys/NsysStrings.h"

namespace ps::trace::import::nsys {

std::pair<std::int32_t, CommOp> NsysProcess::kernelName(std::int64_t nameId, NsysStrings& strings) {
  if (nameId == lastNameId_ && lastName_.first >= 0) return lastName_;
  auto it = kernelNames_.find(nameId);
  if (it == kernelNames_.end()) {
    const std::string& name = nameId < 0 ? std::string("<unnamed kernel>") : strings.get(nameId);
    it =
        kernelNames_.emplace(nameId, std::make_pair(trace.intern(name), commOpFromKernelName(name)))
            .first;
  }
  lastNameId_ = nameId;
  lastName_ = it->second;
  return lastName_;
}

std::int32_t NsysProcess::copyName(std::int64_t copyKind, std::string_view kindName) {
  auto it = copyNames_.find(copyKind);
  if (it != copyNames_.end()) return it->second;
  const std::string name =
      kindName.empty() ? std::string("Memcpy") : "Memcpy " + std::string(kindName);
  const std::int32_t index = trace.intern(name);
  copyNames_.emplace(copyKind, index);
  return index;
}

NsysProcess& NsysProcesses::get(std::int64_t globalPid) {
  if (last_ != nullptr && lastKey_ == globalPid) return *last_;
  auto& slot = byGlobalPid_[globalPid];
  if (!slot) {
    slot = std::make_unique<NsysProcess>();
    slot->globalPid = globalPid;
  }
  lastKey_ = globalPid;
  last_ = slot.get();
  return *last_;
}

NsysProcess* NsysProcesses::find(std::int64_t globalPid) {
  if (last_ != nullptr && lastKey_ == globalPid) return last_;
  auto it = byGlobalPid_.find(globalPid);
  return it == byGlobalPid_.end() ? nullptr : it->second.get();
}

std::vector<NsysProcess*> NsysProcesses::ordered() {
  std::vector<NsysProcess*> out;
  out.reserve(byGlobalPid_.size());
  for (auto& [key, process] : byGlobalPid_)
    out.push_back(process.get());
  std::sort(out.begin(), out.end(), [](const NsysProcess* a, const NsysProcess* b) {
    const int pa = pidOf(a->globalPid), pb = pidOf(b->globalPid);
    return pa != pb ? pa < pb : a->globalPid < b->globalPid;
  });
  return out;
}

}  // namespace ps::trace::import::nsys
