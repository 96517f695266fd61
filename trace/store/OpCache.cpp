#include "trace/store/OpCache.h"

#include <sqlite3.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "trace/store/OpCacheCodec.h"
#include "trace/store/OpCacheProof.h"

namespace ps::trace {
namespace {

constexpr std::int64_t kMaxCachedRank = 1'000'000;  // as the row loader's bound

// A block's checksum is seeded with where it belongs: a block moved to another rank, lane or
// position, or given another op count, fails its check like a damaged one.
std::uint64_t blockSeed(std::int64_t rank, std::int64_t lane, std::int64_t block,
                        std::int64_t ops) {
  const std::int64_t where[] = {rank, lane, block, ops};
  return opCacheChecksum(reinterpret_cast<const unsigned char*>(where), sizeof where, 0);
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    out += n;
    out.push_back('\0');
  }
  return out;
}

std::vector<std::string> splitNames(const unsigned char* p, std::size_t bytes) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < bytes; ++i)
    if (p[i] == '\0') {
      out.emplace_back(reinterpret_cast<const char*>(p) + begin, i - begin);
      begin = i + 1;
    }
  return out;
}

// Filling hundreds of MiB of fresh columns costs a page fault per 4 KiB (in a VM, several times
// the decoding): buffers from 64 KiB up (a 10M-op run's columns are mostly 0.2-1.3 MiB) are asked
// for huge pages and populated in one call instead (Linux; where either is unsupported the pages
// fault in as they are written).
void populate(void* data, std::size_t bytes) {
#ifdef __linux__
  constexpr std::uintptr_t kPage = 4096;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kPage - 1) & ~(kPage - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kPage - 1);
  if (last < first + (1u << 16)) return;  // small: not worth a system call
  (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
  (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
#endif
#else
  (void)data;
  (void)bytes;
#endif
}

template <typename T>
void reserveLarge(std::vector<T>& v, std::size_t n) {
  v.reserve(n);
  populate(v.data(), v.capacity() * sizeof(T));
}

void reserve(OpColumns& c, std::size_t n) {
  reserveLarge(c.start, n);
  reserveLarge(c.end, n);
  reserveLarge(c.bytes, n);
  reserveLarge(c.stage, n);
  reserveLarge(c.microbatch, n);
  reserveLarge(c.step, n);
  reserveLarge(c.peer, n);
  reserveLarge(c.name, n);
  reserveLarge(c.kind, n);
}

// One lane's share of a cached open: its columns' exact size and its blocks, in order.
struct LaneWork {
  OpColumns* columns = nullptr;
  Lane lane = Lane::Compute;
  std::size_t ops = 0;
  struct Block {
    unsigned char* data;  // where its bytes are read to
    std::size_t bytes, ops;
    std::int64_t rowid;
    std::uint64_t seed, checksum;
  };
  std::vector<Block> blocks;
};

// Populating fresh columns (page faults) and decoding into them are most of a large cached open:
// lanes are split over the cores, each thread taking every k-th lane, so both run in parallel.
// SQLite reads stay on the calling thread (readLane(i) reads lane i's blocks, false when one
// fails): it reads every lane in order while the helpers populate their lanes' columns and
// decode each lane once it is read, then decodes its own share. Small runs stay on the calling
// thread. False when a read fails, a block's bytes fail their checksum (a bit flip that still
// decodes) or a block does not decode.
bool decodeAll(std::vector<LaneWork>& lanes, std::size_t totalOps, std::size_t names,
               std::size_t opsPerThread, const std::function<bool(std::size_t)>& readLane) {
  const std::size_t threads =
      std::min<std::size_t>({std::max(1u, std::thread::hardware_concurrency()), 4, lanes.size(),
                             totalOps / std::max<std::size_t>(opsPerThread, 1) + 1});
  std::mutex mutex;
  std::condition_variable read;
  std::size_t lanesRead = 0;  // lanes [0, lanesRead) are in memory
  bool readFailed = false;
  const auto waitUntilRead = [&](std::size_t lane) {
    std::unique_lock<std::mutex> lock(mutex);
    read.wait(lock, [&] { return lanesRead > lane || readFailed; });
    return !readFailed;
  };
  std::vector<char> ok(threads, 1);
  auto share = [&](std::size_t t) {
    for (std::size_t i = t; i < lanes.size() && ok[t]; i += threads) {
      LaneWork& w = lanes[i];
      reserve(*w.columns, w.ops);
      if (!waitUntilRead(i)) {
        ok[t] = 0;
        break;
      }
      for (const LaneWork::Block& b : w.blocks)
        if (opCacheChecksum(b.data, b.bytes, b.seed) != b.checksum ||
            !decodeOpBlock(b.data, b.bytes, b.ops, w.lane, names, *w.columns)) {
          ok[t] = 0;
          break;
        }
    }
  };
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < threads; ++t)
    helpers.emplace_back(share, t);
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const bool done = readLane(i);
    {
      std::lock_guard<std::mutex> lock(mutex);
      readFailed = !done;
      lanesRead = i + 1;
    }
    read.notify_all();
    if (!done) break;
  }
  share(0);
  for (auto& h : helpers)
    h.join();
  return !readFailed && std::all_of(ok.begin(), ok.end(), [](char v) { return v != 0; });
}

// Reads the blob of `rowid`, which must be `bytes` long, straight into `out` (incremental I/O:
// no copy of SQLite's own).
bool readBlob(SqliteDb& db, std::int64_t rowid, unsigned char* out, std::size_t bytes) {
  sqlite3_blob* blob = nullptr;
  if (sqlite3_blob_open(db.handle(), "main", "op_cache", "data", rowid, 0, &blob) != SQLITE_OK) {
    sqlite3_blob_close(blob);
    return false;
  }
  const int size = sqlite3_blob_bytes(blob);
  const bool ok = size >= 0 && static_cast<std::size_t>(size) == bytes &&
                  (size == 0 || sqlite3_blob_read(blob, out, size, 0) == SQLITE_OK);
  sqlite3_blob_close(blob);
  return ok;
}

// The cache's rows for one run, checked against the run's op rows; nullopt when the cache is
// for other rows, another format (a table without this format's columns included), or its rows
// do not make sense.
struct ListedBlock {
  std::int64_t rank, lane, block, ops, rowid;
  std::size_t bytes;
  std::uint64_t checksum;
  std::uint64_t seed() const { return blockSeed(rank, lane, block, ops); }
};
struct BlockList {
  std::vector<ListedBlock> blocks;  // by rank, lane, block
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint64_t> opsPerLane;
  std::optional<ListedBlock> names;
  std::uint64_t rowsCheck = 0;  // the op rows' fingerprint when it was built (OpCacheProof.h)
};
using MaybeBlocks = std::optional<BlockList>;
Result<MaybeBlocks> listBlocks(SqliteDb& db, std::int64_t runId, OpRowRange rows) {
  auto q = db.prepare(
      "SELECT rank, lane, block, format, first_rowid, last_rowid, ops, rowid, length(data), "
      "checksum, rows_check FROM op_cache WHERE run_id=? ORDER BY rank, lane, block");
  if (!q) return MaybeBlocks{};  // a table of an older format
  q->bind(1, runId);
  BlockList list;
  for (bool first = true;; first = false) {
    auto row = q->step();
    if (!row) return std::move(row).takeError();
    if (!*row) break;
    const auto rowsCheck = static_cast<std::uint64_t>(q->int64(10));
    if (q->int64(3) != kOpCacheFormat || q->int64(4) != rows.first || q->int64(5) != rows.last ||
        q->int64(8) < 0 || (!first && rowsCheck != list.rowsCheck))
      return MaybeBlocks{};
    list.rowsCheck = rowsCheck;
    const ListedBlock b{q->int64(0),
                        q->int64(1),
                        q->int64(2),
                        q->int64(6),
                        q->int64(7),
                        static_cast<std::size_t>(q->int64(8)),
                        static_cast<std::uint64_t>(q->int64(9))};
    if (b.rank == -1 && b.lane == -1) {
      list.names = b;
      continue;
    }
    if (b.rank < 0 || b.rank > kMaxCachedRank || b.lane < 0 || b.lane >= kLaneCount || b.ops < 0 ||
        static_cast<std::uint64_t>(b.ops) > kOpCacheBlock)
      return MaybeBlocks{};
    list.opsPerLane[{b.rank, b.lane}] += static_cast<std::uint64_t>(b.ops);
    list.blocks.push_back(b);
  }
  if (!list.names) return MaybeBlocks{};
  return MaybeBlocks{std::move(list)};
}

}  // namespace

Result<bool> readOpCache(SqliteDb& db, RunTrace& run, OpRowRange rows, std::size_t opsPerThread) {
  auto exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='op_cache'");
  if (!exists) return std::move(exists).takeError();
  auto found = exists->step();
  if (!found) return std::move(found).takeError();
  if (!*found) return false;
  auto listed = listBlocks(db, run.info.id, rows);
  if (!listed) return std::move(listed).takeError();
  if (!*listed) return false;
  const BlockList& list = **listed;
  // The rows it stands for are still the rows it was built from (OpCacheProof.h).
  auto fingerprint = opRowsFingerprint(db, run.info.id, rows);
  if (!fingerprint) return std::move(fingerprint).takeError();
  if (*fingerprint != list.rowsCheck) return false;
  RunTrace decoded;
  std::vector<unsigned char> names(list.names->bytes);
  if (!readBlob(db, list.names->rowid, names.data(), names.size()) ||
      opCacheChecksum(names.data(), names.size(), list.names->seed()) != list.names->checksum)
    return false;
  decoded.names = splitNames(names.data(), names.size());
  if (!list.blocks.empty())
    decoded.ranks.resize(static_cast<std::size_t>(list.blocks.back().rank) + 1);
  std::vector<LaneWork> lanes;
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> laneIndex;
  std::size_t totalOps = 0;
  for (const auto& [key, ops] : list.opsPerLane) {  // exact sizes: no regrowth of 10M-op columns
    laneIndex[key] = lanes.size();
    LaneWork& w = lanes.emplace_back();
    w.columns = &decoded.ranks[static_cast<std::size_t>(key.first)]
                     .lanes[static_cast<std::size_t>(key.second)];
    w.lane = static_cast<Lane>(key.second);
    w.ops = static_cast<std::size_t>(ops);
    totalOps += w.ops;
  }
  // Every block into one buffer, populated at once: a fresh buffer per block faulted its pages in
  // one by one, which took longer than reading the blocks (0.45 s for 10M ops in a VM).
  std::size_t totalBytes = 0;
  for (const ListedBlock& b : list.blocks)
    totalBytes += b.bytes;
  const auto data = std::make_unique_for_overwrite<unsigned char[]>(totalBytes);
  populate(data.get(), totalBytes);
  std::size_t at = 0;
  for (const ListedBlock& b : list.blocks) {  // (rank, lane, block) order: lanes in map order
    lanes[laneIndex[{b.rank, b.lane}]].blocks.push_back(
        {data.get() + at, b.bytes, static_cast<std::size_t>(b.ops), b.rowid, b.seed(), b.checksum});
    at += b.bytes;
  }
  const auto readLane = [&db, &lanes](std::size_t i) {
    for (const LaneWork::Block& b : lanes[i].blocks)
      if (!readBlob(db, b.rowid, b.data, b.bytes)) return false;
    return true;
  };
  if (!decodeAll(lanes, totalOps, decoded.names.size(), opsPerThread, readLane)) return false;
  // Rank rows the loader already has (headers) keep their info; the cache adds the lanes.
  if (run.ranks.size() < decoded.ranks.size()) run.ranks.resize(decoded.ranks.size());
  for (std::size_t r = 0; r < run.ranks.size(); ++r) {
    run.ranks[r].info.rank = static_cast<int>(r);
    if (r < decoded.ranks.size()) run.ranks[r].lanes = std::move(decoded.ranks[r].lanes);
  }
  run.names = std::move(decoded.names);
  return true;
}

Status writeOpCache(SqliteDb& db, const RunTrace& run, OpRowRange rows) {
  // A savepoint inside the caller's read transaction: its first write upgrades that transaction,
  // which WAL refuses (SQLITE_BUSY_SNAPSHOT) once another connection has committed since the
  // rows were read. So the cache and the rows it stands for are one snapshot.
  PS_TRY(db.exec("SAVEPOINT op_cache_write"));
  auto fail = [&](const std::string& message) -> Status {
    (void)db.exec("ROLLBACK TO op_cache_write");
    (void)db.exec("RELEASE op_cache_write");
    return Error{message};
  };
  if (auto s = prepareOpCacheTable(db); !s) return fail(s.error());
  auto del = db.prepare("DELETE FROM op_cache WHERE run_id=?");
  if (!del) return fail(del.error());
  del->bind(1, run.info.id);
  if (auto s = del->run(); !s) return fail(s.error());
  // Taken after the triggers exist: the fingerprint covers them.
  auto fingerprint = opRowsFingerprint(db, run.info.id, rows);
  if (!fingerprint) return fail(fingerprint.error());
  auto ins = db.prepare(
      "INSERT INTO op_cache(run_id, rank, lane, block, format, first_rowid, last_rowid, ops, "
      "data, checksum, rows_check) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!ins) return fail(ins.error());
  const auto insert = [&](std::int64_t rank, std::int64_t lane, std::int64_t block,
                          std::int64_t ops, const void* data, std::size_t bytes) {
    ins->bind(1, run.info.id);
    ins->bind(2, rank);
    ins->bind(3, lane);
    ins->bind(4, block);
    ins->bind(5, kOpCacheFormat);
    ins->bind(6, rows.first);
    ins->bind(7, rows.last);
    ins->bind(8, ops);
    ins->bindStaticBlob(9, data, bytes);
    const std::uint64_t checksum = opCacheChecksum(static_cast<const unsigned char*>(data), bytes,
                                                   blockSeed(rank, lane, block, ops));
    ins->bind(10, static_cast<std::int64_t>(checksum));
    ins->bind(11, static_cast<std::int64_t>(*fingerprint));
    return ins->run();
  };
  const std::string names = joinNames(run.names);
  if (auto s = insert(-1, -1, 0, 0, names.data(), names.size()); !s) return fail(s.error());
  for (std::size_t r = 0; r < run.ranks.size(); ++r)
    for (int l = 0; l < kLaneCount; ++l) {
      const OpColumns& c = run.ranks[r].lanes[static_cast<std::size_t>(l)];
      for (std::size_t from = 0, block = 0; from < c.size(); from += kOpCacheBlock, ++block) {
        const std::size_t n = std::min(kOpCacheBlock, c.size() - from);
        const auto data = encodeOpBlock(c, from, n);
        if (auto s = insert(static_cast<std::int64_t>(r), l, static_cast<std::int64_t>(block),
                            static_cast<std::int64_t>(n), data.data(), data.size());
            !s)
          return fail(s.error());
      }
    }
  if (auto s = db.exec("RELEASE op_cache_write"); !s) return fail(s.error());
  return {};
}

}  // namespace ps::trace
