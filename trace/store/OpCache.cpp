#include "trace/store/OpCache.h"

#include <sqlite3.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ps::trace {
namespace {

constexpr std::string_view kCreate = R"sql(
CREATE TABLE IF NOT EXISTS op_cache(
  run_id INTEGER NOT NULL, rank INTEGER NOT NULL, lane INTEGER NOT NULL, block INTEGER NOT NULL,
  format INTEGER NOT NULL, first_rowid INTEGER NOT NULL, last_rowid INTEGER NOT NULL,
  ops INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY(run_id, rank, lane, block));
CREATE TRIGGER IF NOT EXISTS op_cache_stale_on_update AFTER UPDATE ON op
  WHEN EXISTS (SELECT 1 FROM op_cache WHERE run_id IN (OLD.run_id, NEW.run_id))
  BEGIN DELETE FROM op_cache WHERE run_id IN (OLD.run_id, NEW.run_id); END;
CREATE TRIGGER IF NOT EXISTS op_cache_stale_on_delete AFTER DELETE ON op
  WHEN EXISTS (SELECT 1 FROM op_cache WHERE run_id = OLD.run_id)
  BEGIN DELETE FROM op_cache WHERE run_id = OLD.run_id; END;
)sql";

constexpr std::int64_t kMaxCachedRank = 1'000'000;  // as the row loader's bound

// --- block encoding: each column as unsigned integers of one width (1, 2, 4 or 8 bytes, the
// least that holds the block's largest; a width byte, then the values), in this order:
//   start   zigzag delta from the previous op's start (a lane is sorted by start; the first
//           from 0)
//   end     zigzag end − start
//   bytes, stage, microbatch, peer, name    zigzag value + 1 (kNoValue = −1 becomes 0)
//   step    as is
//   kind    one byte per op
// A pipeline's ops are close in time and small in ids: 12-15 bytes an op instead of 45, and
// decoding is one tight widening loop per column.

std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}
// Unsigned sums: a damaged block wraps instead of overflowing (and fails the checks in decode).
std::int64_t add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

void putColumn(std::vector<unsigned char>& out, const std::vector<std::uint64_t>& values) {
  std::uint64_t max = 0;
  for (std::uint64_t v : values)
    max = std::max(max, v);
  const unsigned char width = max <= 0xff ? 1 : max <= 0xffff ? 2 : max <= 0xffffffffu ? 4 : 8;
  out.push_back(width);
  const std::size_t at = out.size();
  out.resize(at + values.size() * width);
  unsigned char* p = out.data() + at;
  for (std::uint64_t v : values) {
    std::memcpy(p, &v, width);  // little-endian: the low bytes
    p += width;
  }
}

template <typename Get>
void putColumn(std::vector<unsigned char>& out, std::size_t n, Get&& get) {
  std::vector<std::uint64_t> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = get(i);
  putColumn(out, values);
}

std::vector<unsigned char> encode(const OpColumns& c, std::size_t from, std::size_t n) {
  std::vector<unsigned char> out;
  out.reserve(n * 16);
  putColumn(out, n, [&](std::size_t i) {
    return zigzag(c.start[from + i] - (i == 0 ? 0 : c.start[from + i - 1]));
  });
  putColumn(out, n, [&](std::size_t i) { return zigzag(c.end[from + i] - c.start[from + i]); });
  putColumn(out, n, [&](std::size_t i) { return zigzag(c.bytes[from + i] + 1); });
  for (const auto* col : {&c.stage, &c.microbatch, &c.peer, &c.name})
    putColumn(out, n, [&](std::size_t i) { return zigzag(std::int64_t{(*col)[from + i]} + 1); });
  putColumn(out, n, [&](std::size_t i) { return static_cast<std::uint64_t>(c.step[from + i]); });
  const auto* kinds = reinterpret_cast<const unsigned char*>(c.kind.data() + from);
  out.insert(out.end(), kinds, kinds + n);
  return out;
}

// One column of `n` values, widened; false when the block is too short or the width unknown.
class ColumnReader {
 public:
  ColumnReader(const unsigned char* p, std::size_t size) : p_(p), end_(p + size) {}
  template <typename Emit>
  bool column(std::size_t n, Emit&& emit) {
    if (p_ == end_) return false;
    const unsigned width = *p_++;
    if ((width != 1 && width != 2 && width != 4 && width != 8) ||
        static_cast<std::size_t>(end_ - p_) / width < n)
      return false;
    switch (width) {
      case 1:
        widen<std::uint8_t>(n, emit);
        break;
      case 2:
        widen<std::uint16_t>(n, emit);
        break;
      case 4:
        widen<std::uint32_t>(n, emit);
        break;
      default:
        widen<std::uint64_t>(n, emit);
    }
    return true;
  }
  const unsigned char* rest(std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) != n) return nullptr;
    return p_;
  }

 private:
  template <typename U, typename Emit>
  void widen(std::size_t n, Emit& emit) {
    for (std::size_t i = 0; i < n; ++i) {
      U v;
      std::memcpy(&v, p_ + i * sizeof(U), sizeof(U));
      emit(i, static_cast<std::uint64_t>(v));
    }
    p_ += n * sizeof(U);
  }
  const unsigned char* p_;
  const unsigned char* end_;
};

// Appends a block of `n` ops of `lane` to `c` (capacity reserved by the caller); false when it
// does not decode to exactly that.
bool decode(const unsigned char* p, std::size_t size, std::size_t n, Lane lane, std::size_t names,
            OpColumns& c) {
  // Resized, then filled: the decoding loops run without capacity checks.
  ColumnReader in(p, size);
  const std::size_t at = c.size();
  const auto grow = [&](auto& v) {
    v.resize(at + n);
    return v.data() + at;
  };
  std::int64_t* start = grow(c.start);
  std::int64_t* end = grow(c.end);
  std::int64_t* bytes = grow(c.bytes);
  std::int64_t t = 0;
  bool ok =
      in.column(n, [&](std::size_t i, std::uint64_t v) { start[i] = t = add(t, unzigzag(v)); });
  ok = ok &&
       in.column(n, [&](std::size_t i, std::uint64_t v) { end[i] = add(start[i], unzigzag(v)); });
  ok = ok && in.column(n, [&](std::size_t i, std::uint64_t v) { bytes[i] = add(unzigzag(v), -1); });
  bool ids = true;
  for (auto* col : {&c.stage, &c.microbatch, &c.peer, &c.name}) {
    std::int32_t* dst = grow(*col);
    ok = ok && in.column(n, [&](std::size_t i, std::uint64_t v) {
      const std::int64_t x = add(unzigzag(v), -1);
      ids = ids && x >= -1 && x <= INT32_MAX;
      dst[i] = static_cast<std::int32_t>(x);
    });
  }
  std::int32_t* step = grow(c.step);
  ok = ok && in.column(n, [&](std::size_t i, std::uint64_t v) {
    ids = ids && v <= INT32_MAX;
    step[i] = static_cast<std::int32_t>(v);
  });
  const unsigned char* kinds = ok ? in.rest(n) : nullptr;
  if (!kinds || !ids) return false;
  OpKind* kind = grow(c.kind);
  const std::int32_t* name = c.name.data() + at;
  for (std::size_t i = 0; i < n; ++i) {
    if (kinds[i] >= kOpKindCount) return false;
    kind[i] = static_cast<OpKind>(kinds[i]);
    if (laneOf(kind[i]) != lane) return false;
    if (end[i] < start[i] || (i > 0 && start[i] < start[i - 1])) return false;
    if (name[i] != kNoValue && static_cast<std::size_t>(name[i]) >= names) return false;
  }
  return true;
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

// Filling hundreds of MiB of fresh columns costs a page fault per 4 KiB (in a VM, as much as the
// decoding): large buffers are asked for huge pages and populated in one call instead (Linux;
// where either is unsupported the pages fault in as they are written).
template <typename T>
void reserveLarge(std::vector<T>& v, std::size_t n) {
  v.reserve(n);
#ifdef __linux__
  constexpr std::uintptr_t kPage = 4096;
  const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
  const std::uintptr_t first = (begin + kPage - 1) & ~(kPage - 1);
  const std::uintptr_t last = (begin + v.capacity() * sizeof(T)) & ~(kPage - 1);
  if (last < first + (1u << 20)) return;  // small: not worth a system call
  (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
  (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
#endif
#endif
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

// Reserving (populating) the columns is most of a large cached open: the lanes are split over
// the cores, each thread taking every k-th lane (the kernel faults pages in for several threads
// at once). Small runs stay on the calling thread.
void reserveAll(std::vector<std::pair<OpColumns*, std::size_t>>& lanes, std::size_t totalOps) {
  constexpr std::size_t kOpsPerThread = 1'000'000;
  const std::size_t threads = std::min<std::size_t>(
      {std::max(1u, std::thread::hardware_concurrency()), 4, totalOps / kOpsPerThread + 1});
  auto share = [&lanes, threads](std::size_t t) {
    for (std::size_t i = t; i < lanes.size(); i += threads)
      reserve(*lanes[i].first, lanes[i].second);
  };
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < threads; ++t)
    helpers.emplace_back(share, t);
  share(0);
  for (auto& h : helpers)
    h.join();
}

// Reads a blob straight into `buffer` (incremental I/O: no copy of SQLite's own).
bool readBlob(SqliteDb& db, std::int64_t rowid, std::vector<unsigned char>& buffer) {
  sqlite3_blob* blob = nullptr;
  if (sqlite3_blob_open(db.handle(), "main", "op_cache", "data", rowid, 0, &blob) != SQLITE_OK) {
    sqlite3_blob_close(blob);
    return false;
  }
  const int size = sqlite3_blob_bytes(blob);
  buffer.resize(static_cast<std::size_t>(size));
  const bool ok = size == 0 || sqlite3_blob_read(blob, buffer.data(), size, 0) == SQLITE_OK;
  sqlite3_blob_close(blob);
  return ok;
}

}  // namespace

Status healOpCache(SqliteDb& db) {
  auto q = db.prepare(
      "SELECT count(*) FROM sqlite_master WHERE type='trigger' AND name LIKE 'op_cache_stale_%'");
  if (!q) return std::move(q).takeError();
  auto row = q->step();
  if (!row) return std::move(row).takeError();
  if (q->int64(0) == 0) return {};
  return db.exec(kCreate);
}

Result<bool> readOpCache(SqliteDb& db, RunTrace& run, OpRowRange rows) {
  auto exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='op_cache'");
  if (!exists) return std::move(exists).takeError();
  auto found = exists->step();
  if (!found) return std::move(found).takeError();
  if (!*found) return false;
  auto q = db.prepare(
      "SELECT rank, lane, block, format, first_rowid, last_rowid, ops, rowid FROM op_cache "
      "WHERE run_id=? ORDER BY rank, lane, block");
  if (!q) return std::move(q).takeError();
  q->bind(1, run.info.id);
  struct Block {
    std::int64_t rank, lane, ops, rowid;
  };
  std::vector<Block> blocks;
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint64_t> perLane;
  std::int64_t namesRow = -1;
  for (;;) {
    auto row = q->step();
    if (!row) return std::move(row).takeError();
    if (!*row) break;
    if (q->int64(3) != kOpCacheFormat || q->int64(4) != rows.first || q->int64(5) != rows.last)
      return false;
    const Block b{q->int64(0), q->int64(1), q->int64(6), q->int64(7)};
    if (b.rank == -1 && b.lane == -1) {
      namesRow = b.rowid;
      continue;
    }
    if (b.rank < 0 || b.rank > kMaxCachedRank || b.lane < 0 || b.lane >= kLaneCount || b.ops < 0 ||
        static_cast<std::uint64_t>(b.ops) > kOpCacheBlock)
      return false;
    perLane[{b.rank, b.lane}] += static_cast<std::uint64_t>(b.ops);
    blocks.push_back(b);
  }
  if (namesRow < 0) return false;
  RunTrace decoded;
  std::vector<unsigned char> buffer;
  if (!readBlob(db, namesRow, buffer)) return false;
  decoded.names = splitNames(buffer.data(), buffer.size());
  if (!blocks.empty()) decoded.ranks.resize(static_cast<std::size_t>(blocks.back().rank) + 1);
  std::vector<std::pair<OpColumns*, std::size_t>> lanes;
  std::size_t totalOps = 0;
  for (const auto& [key, ops] : perLane) {  // exact sizes: no regrowth of 10M-op columns
    lanes.emplace_back(&decoded.ranks[static_cast<std::size_t>(key.first)]
                            .lanes[static_cast<std::size_t>(key.second)],
                       static_cast<std::size_t>(ops));
    totalOps += static_cast<std::size_t>(ops);
  }
  reserveAll(lanes, totalOps);
  for (const Block& b : blocks)
    if (!readBlob(db, b.rowid, buffer) ||
        !decode(buffer.data(), buffer.size(), static_cast<std::size_t>(b.ops),
                static_cast<Lane>(b.lane), decoded.names.size(),
                decoded.ranks[static_cast<std::size_t>(b.rank)]
                    .lanes[static_cast<std::size_t>(b.lane)]))
      return false;
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
  PS_TRY(db.exec("BEGIN IMMEDIATE"));
  auto fail = [&](const std::string& message) -> Status {
    (void)db.exec("ROLLBACK");
    return Error{message};
  };
  if (auto s = db.exec(kCreate); !s) return fail(s.error());
  auto del = db.prepare("DELETE FROM op_cache WHERE run_id=?");
  if (!del) return fail(del.error());
  del->bind(1, run.info.id);
  if (auto s = del->run(); !s) return fail(s.error());
  auto ins = db.prepare(
      "INSERT INTO op_cache(run_id, rank, lane, block, format, first_rowid, last_rowid, ops, "
      "data) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
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
    return ins->run();
  };
  const std::string names = joinNames(run.names);
  if (auto s = insert(-1, -1, 0, 0, names.data(), names.size()); !s) return fail(s.error());
  for (std::size_t r = 0; r < run.ranks.size(); ++r)
    for (int l = 0; l < kLaneCount; ++l) {
      const OpColumns& c = run.ranks[r].lanes[static_cast<std::size_t>(l)];
      for (std::size_t from = 0, block = 0; from < c.size(); from += kOpCacheBlock, ++block) {
        const std::size_t n = std::min(kOpCacheBlock, c.size() - from);
        const auto data = encode(c, from, n);
        if (auto s = insert(static_cast<std::int64_t>(r), l, static_cast<std::int64_t>(block),
                            static_cast<std::int64_t>(n), data.data(), data.size());
            !s)
          return fail(s.error());
      }
    }
  if (auto s = db.exec("COMMIT"); !s) return fail(s.error());
  return {};
}

}  // namespace ps::trace
