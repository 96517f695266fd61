#include "tests/trace/import/NsysFixture.h"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

#include "tests/trace/import/FixtureTable.h"
#include "tests/trace/import/NsysFixtureSchema.h"
#include "trace/store/Sqlite.h"

namespace ps::trace::import::testing {

namespace {

// Documented codes of nsys 2024.6 (before enumCodeOffset).
constexpr std::int64_t kNvtxMark = 34, kNvtxThread = 39, kNvtxPushPop = 59, kNvtxStartEnd = 60,
                       kNvtxDomainCreate = 75;
constexpr std::int64_t kCopyHtoD = 1, kCopyPtoP = 10;
constexpr std::int64_t kMemPinned = 1, kMemDevice = 2;
constexpr std::int64_t kMemAlloc = 0, kMemFree = 1;

// Everything one writer call needs.
class NsysFixtureWriter {
 public:
  NsysFixtureWriter(SqliteDb& db, const NsysFixtureOptions& o)
      : o_(o),
        strings_(db, "StringIds", nsysFixtureColumns("StringIds"), o),
        meta_(db, "META_DATA_EXPORT", nsysFixtureColumns("META_DATA_EXPORT"), o),
        session_(db, "TARGET_INFO_SESSION_START_TIME",
                 nsysFixtureColumns("TARGET_INFO_SESSION_START_TIME"), o),
        env_(db, "TARGET_INFO_SYSTEM_ENV", nsysFixtureColumns("TARGET_INFO_SYSTEM_ENV"), o),
        gpu_(db, "TARGET_INFO_GPU", nsysFixtureColumns("TARGET_INFO_GPU"), o),
        cudaGpu_(db, "TARGET_INFO_CUDA_GPU", nsysFixtureColumns("TARGET_INFO_CUDA_GPU"), o),
        processes_(db, "PROCESSES", nsysFixtureColumns("PROCESSES"), o),
        threads_(db, "ThreadNames", nsysFixtureColumns("ThreadNames"), o),
        eventTypes_(db, "ENUM_NSYS_EVENT_TYPE", nsysFixtureColumns("ENUM_NSYS_EVENT_TYPE"), o),
        copyKinds_(db, "ENUM_CUDA_MEMCPY_OPER", nsysFixtureColumns("ENUM_CUDA_MEMCPY_OPER"), o),
        memOpers_(db, "ENUM_CUDA_DEV_MEM_EVENT_OPER",
                  nsysFixtureColumns("ENUM_CUDA_DEV_MEM_EVENT_OPER"), o),
        memKinds_(db, "ENUM_CUDA_MEM_KIND", nsysFixtureColumns("ENUM_CUDA_MEM_KIND"), o),
        nvtx_(db, "NVTX_EVENTS", nsysFixtureColumns("NVTX_EVENTS"), o),
        runtime_(db, "CUPTI_ACTIVITY_KIND_RUNTIME",
                 nsysFixtureColumns("CUPTI_ACTIVITY_KIND_RUNTIME"), o),
        kernels_(db, "CUPTI_ACTIVITY_KIND_KERNEL", nsysFixtureColumns("CUPTI_ACTIVITY_KIND_KERNEL"),
                 o),
        memcpy_(db, "CUPTI_ACTIVITY_KIND_MEMCPY", nsysFixtureColumns("CUPTI_ACTIVITY_KIND_MEMCPY"),
                o),
        memset_(db, "CUPTI_ACTIVITY_KIND_MEMSET", nsysFixtureColumns("CUPTI_ACTIVITY_KIND_MEMSET"),
                o),
        memory_(db, "CUDA_GPU_MEMORY_USAGE_EVENTS",
                nsysFixtureColumns("CUDA_GPU_MEMORY_USAGE_EVENTS"), o) {}

  Status write(const std::vector<FixtureRank>& ranks) {
    for (FixtureTable* t : tables())
      PS_TRY(t->create());
    PS_TRY(writeMetadata(ranks));
    if (o_.writeEnumTables) PS_TRY(writeEnums());
    for (const FixtureRank& r : ranks)
      PS_TRY(writeRank(r));
    return {};
  }

 private:
  std::vector<FixtureTable*> tables() {
    std::vector<FixtureTable*> all = {&strings_,   &meta_,    &session_, &env_,
                                      &processes_, &threads_, &nvtx_,    &runtime_,
                                      &kernels_,   &memcpy_,  &memset_,  &memory_};
    all.push_back(o_.trimmedGpuInfo ? &cudaGpu_ : &gpu_);
    if (o_.writeEnumTables) {
      for (FixtureTable* t : {&eventTypes_, &copyKinds_, &memOpers_, &memKinds_})
        all.push_back(t);
    }
    return all;
  }

  std::int64_t code(std::int64_t documented) const { return documented + o_.enumCodeOffset; }

  std::int64_t stringId(const std::string& s) {
    auto it = stringIds_.find(s);
    if (it != stringIds_.end()) return it->second;
    const auto id = static_cast<std::int64_t>(stringIds_.size()) + 1;
    stringIds_.emplace(s, id);
    // A failure here surfaces at commit (the row is simply missing otherwise).
    (void)strings_.insert({id, s});
    return id;
  }

  Status writeMetadata(const std::vector<FixtureRank>& ranks) {
    const std::string& v = o_.schemaVersion;
    const auto dot1 = v.find('.');
    const auto dot2 = v.find('.', dot1 == std::string::npos ? v.size() : dot1 + 1);
    const std::pair<const char*, std::string> rows[] = {
        {"EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"},
        {"EXPORT_PRODUCT_VERSION", "2024.6.2.25"},
        {"EXPORT_SCHEMA_VERSION", v},
        {"EXPORT_SCHEMA_VERSION_MAJOR", v.substr(0, dot1)},
        {"EXPORT_SCHEMA_VERSION_MINOR",
         dot1 == std::string::npos ? "" : v.substr(dot1 + 1, dot2 - dot1 - 1)},
        {"EXPORT_PARAM_TIME_NORMALIZE", "false"},
    };
    for (const auto& [name, value] : rows)
      PS_TRY(meta_.insert({name, value}));
    const std::int64_t base = ranks.empty() ? 0 : ranks.front().wallClockBaseNs;
    PS_TRY(session_.insert({base, "2023-11-14T22:13:20", "2023-11-14T23:13:20"}));
    PS_TRY(env_.insert({std::int64_t{1} << 48, "Local (CLI)", "Hostname", 619, o_.hostName}));
    return {};
  }

  Status writeEnums() {
    const std::pair<std::int64_t, const char*> eventTypes[] = {
        {0, "Unknown"},
        {32, "NvtxEvents"},
        {33, "NvtxCategory"},
        {kNvtxMark, "NvtxMark"},
        {35, "NvtxPushRange"},
        {36, "NvtxPopRange"},
        {37, "NvtxStartRange"},
        {38, "NvtxEndRange"},
        {kNvtxThread, "NvtxThread"},
        {45, "Cuda"},
        {kNvtxPushPop, "NvtxPushPopRange"},
        {kNvtxStartEnd, "NvtxStartEndRange"},
        {kNvtxDomainCreate, "NvtxDomainCreate"},
        {76, "NvtxDomainDestroy"},
        {79, "CudaDeviceKernel"},
    };
    for (const auto& [id, name] : eventTypes)
      PS_TRY(eventTypes_.insert({code(id), name, name}));
    const std::pair<const char*, const char*> copyKinds[] = {
        {"CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"},
        {"CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
        {"CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"},
        {"CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"},
        {"CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"},
        {"CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"},
        {"CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"},
        {"CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"},
        {"CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"},
        {"CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"},
        {"CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"},
        {"CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device"},
        {"CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host"},
        {"CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device"},
    };
    for (std::size_t i = 0; i < std::size(copyKinds); ++i)
      PS_TRY(copyKinds_.insert(
          {code(static_cast<std::int64_t>(i)), copyKinds[i].first, copyKinds[i].second}));
    PS_TRY(memOpers_.insert({code(kMemAlloc), "CUDA_DEV_MEM_EVENT_OPR_ALLOCATION", "Allocation"}));
    PS_TRY(
        memOpers_.insert({code(kMemFree), "CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION", "Deallocation"}));
    const std::pair<const char*, const char*> memKinds[] = {
        {"CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"},
        {"CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"},
        {"CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"},
        {"CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"},
        {"CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"},
        {"CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
        {"CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"},
        {"CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"},
    };
    for (std::size_t i = 0; i < std::size(memKinds); ++i)
      PS_TRY(memKinds_.insert(
          {code(static_cast<std::int64_t>(i)), memKinds[i].first, memKinds[i].second}));
    return {};
  }

  Status writeDevice(const FixtureRank& r, int pid) {
    const std::int64_t vm = std::int64_t{1} << 48;
    const std::string bus = "0000:" + std::to_string(0x18 + r.rank) + ":00.0";
    if (o_.trimmedGpuInfo)
      return cudaGpu_.insert({vm, r.deviceName, bus, std::int64_t{4'800'000'000'000},
                              r.memoryCapacityBytes, 132, o_.computeMajor, o_.computeMinor, r.rank,
                              pid});
    return gpu_.insert({vm, r.rank, r.deviceName, bus, 1, 52'428'800, r.memoryCapacityBytes,
                        std::int64_t{4'800'000'000'000}, 1'980'000'000, 132, "GPU-fixture", "GH100",
                        r.rank, o_.computeMajor, o_.computeMinor});
  }

  Status writeNvtxRange(std::int64_t start, std::int64_t end, const std::string& name,
                        std::int64_t globalTid, std::optional<int> step) {
    const bool startEnd = o_.startEndRanges;
    Cell text = o_.registeredNames ? Cell(nullptr) : Cell(name);
    Cell textId = o_.registeredNames ? Cell(stringId(name)) : Cell(nullptr);
    auto payload = [&](const char* column) -> Cell {
      if (!step || o_.stepPayloadColumn != column) return nullptr;
      return std::int64_t{*step};
    };
    return nvtx_.insert({start,
                         end,
                         code(startEnd ? kNvtxStartEnd : kNvtxPushPop),
                         startEnd ? Cell(++rangeId_) : Cell(nullptr),
                         nullptr,
                         std::int64_t{0xFF76B900},
                         text,
                         globalTid,
                         startEnd ? Cell(globalTid) : Cell(nullptr),
                         textId,
                         domainId_,
                         payload("uint64Value"),
                         payload("int64Value"),
                         nullptr,
                         payload("uint32Value"),
                         payload("int32Value"),
                         nullptr,
                         nullptr,
                         nullptr,
                         nullptr});
  }

  Status writeRank(const FixtureRank& r) {
    const int pid = o_.basePid + r.rank;
    const std::int64_t gpid = fixtureGlobalPid(o_, r.rank), gtid = fixtureGlobalTid(o_, r.rank);
    const std::int64_t skew = r.clockSkewNs, lead = o_.hostLeadNs;
    PS_TRY(processes_.insert({gpid, pid, "python3"}));
    PS_TRY(threads_.insert({stringId("pt_main_thread"), 0, gtid}));
    PS_TRY(writeDevice(r, pid));
    domainId_ = 0;
    if (!o_.nvtxDomain.empty()) {
      domainId_ = 1;
      PS_TRY(nvtx_.insert({skew,          nullptr,   code(kNvtxDomainCreate),
                           nullptr,       nullptr,   nullptr,
                           o_.nvtxDomain, gtid,      nullptr,
                           nullptr,       domainId_, nullptr,
                           nullptr,       nullptr,   nullptr,
                           nullptr,       nullptr,   nullptr,
                           nullptr,       nullptr}));
    }
    for (std::size_t i = 0; i < r.profilerSteps.size(); ++i) {
      const auto& [s, e] = r.profilerSteps[i];
      PS_TRY(writeNvtxRange(s - lead + skew, e - lead + skew, "ProfilerStep#" + std::to_string(i),
                            gtid, std::nullopt));
    }
    const std::int64_t launchName = stringId("cudaLaunchKernel_v7000");
    const std::int64_t copyName = stringId("cudaMemcpyAsync_v3020");
    std::int64_t correlation = 1000, grid = 0;
    for (const FixtureEvent& ev : r.events) {
      const std::int64_t start = ev.startNs + skew, end = ev.endNs + skew;
      if (ev.kind == FixtureEventKind::Annotation) {
        PS_TRY(writeNvtxRange(ev.startNs - lead + skew, ev.endNs - lead + skew, ev.name, gtid,
                              ev.step));
        continue;
      }
      const std::int64_t corr = ++correlation;
      const std::int64_t launch = ev.startNs - lead + skew;
      const bool copy = ev.kind == FixtureEventKind::Memcpy;
      PS_TRY(runtime_.insert(
          {launch, launch + 1, 1, gtid, corr, copy ? copyName : launchName, 0, nullptr}));
      if (copy) {
        const bool p2p = ev.peer >= 0;
        PS_TRY(memcpy_.insert({start,
                               end,
                               r.rank,
                               1,
                               nullptr,
                               kFixtureCopyStream,
                               corr,
                               gpid,
                               std::max<std::int64_t>(ev.bytes, 0),
                               code(p2p ? kCopyPtoP : kCopyHtoD),
                               nullptr,
                               code(p2p ? kMemDevice : kMemPinned),
                               code(kMemDevice),
                               p2p ? Cell(r.rank) : Cell(nullptr),
                               p2p ? Cell(1) : Cell(nullptr),
                               p2p ? Cell(ev.peer) : Cell(nullptr),
                               p2p ? Cell(1) : Cell(nullptr),
                               nullptr,
                               nullptr,
                               nullptr}));
        continue;
      }
      const std::int64_t name = stringId(ev.name);
      const std::int64_t stream =
          ev.kind == FixtureEventKind::Nccl ? kFixtureNcclStream : kFixtureComputeStream;
      PS_TRY(kernels_.insert({start,   end, r.rank, 1,  nullptr, stream, corr,    gpid, name, name,
                              nullptr, 3,   0,      32, 108,     1,      1,       256,  1,    1,
                              0,       0,   0,      0,  ++grid,  0,      nullptr, 0}));
    }
    return writeMemory(r, gpid);
  }

  Status writeMemory(const FixtureRank& r, std::int64_t gpid) {
    std::int64_t inUse = 0, address = 0x7f0000000000;
    if (o_.pinnedHostBytes > 0) {
      const std::int64_t t = (r.memory.empty() ? 0 : r.memory.front().first) + r.clockSkewNs;
      PS_TRY(memory_.insert({t, gpid, r.rank, 1, address, 0x401000, o_.pinnedHostBytes,
                             code(kMemPinned), code(kMemAlloc), nullptr, nullptr}));
    }
    for (const auto& [t, bytes] : r.memory) {
      const std::int64_t delta = bytes - inUse;
      inUse = bytes;
      if (delta == 0) continue;
      address += 0x100000;
      PS_TRY(memory_.insert({t + r.clockSkewNs, gpid, r.rank, 1, address, 0x401000,
                             delta > 0 ? delta : -delta, code(kMemDevice),
                             code(delta > 0 ? kMemAlloc : kMemFree), nullptr, nullptr}));
    }
    return {};
  }

  const NsysFixtureOptions& o_;
  FixtureTable strings_, meta_, session_, env_, gpu_, cudaGpu_, processes_, threads_;
  FixtureTable eventTypes_, copyKinds_, memOpers_, memKinds_;
  FixtureTable nvtx_, runtime_, kernels_, memcpy_, memset_, memory_;
  std::map<std::string, std::int64_t> stringIds_;
  std::int64_t rangeId_ = 0;
  std::int64_t domainId_ = 0;
};

}  // namespace

std::int64_t fixtureGlobalPid(const NsysFixtureOptions& options, int rank) {
  return (std::int64_t{1} << 48) | (static_cast<std::int64_t>(options.basePid + rank) << 24);
}

std::int64_t fixtureGlobalTid(const NsysFixtureOptions& options, int rank) {
  return fixtureGlobalPid(options, rank) | (options.basePid + rank);
}

Status writeNsysFixture(const std::string& path, const std::vector<FixtureRank>& ranks,
                        const NsysFixtureOptions& options) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  auto db = SqliteDb::open(path, SqliteDb::Mode::ReadWriteCreate);
  if (!db) return std::move(db).takeError();
  PS_TRY(db->exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF"));
  {
    auto tx = SqliteTransaction::begin(*db);
    if (!tx) return std::move(tx).takeError();
    NsysFixtureWriter writer(*db, options);
    PS_TRY(writer.write(ranks));
    PS_TRY(tx->commit());
  }
  return {};
}

}  // namespace ps::trace::import::testing
