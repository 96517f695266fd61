#include "trace/store/OpCacheCodec.h"

#include <algorithm>
#include <climits>
#include <cstring>

namespace ps::trace {
namespace {

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

}  // namespace

std::vector<unsigned char> encodeOpBlock(const OpColumns& c, std::size_t from, std::size_t n) {
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

namespace {

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
}  // namespace

bool decodeOpBlock(const unsigned char* p, std::size_t size, std::size_t n, Lane lane,
                   std::size_t names, OpColumns& c) {
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

}  // namespace ps::trace

namespace ps::trace {
namespace {

constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr std::uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr std::uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr std::uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

std::uint64_t rotl(std::uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}
std::uint64_t mixLane(std::uint64_t acc, std::uint64_t lane) {
  return rotl(acc + lane * kPrime2, 31) * kPrime1;
}
std::uint64_t mergeLane(std::uint64_t h, std::uint64_t acc) {
  return (h ^ mixLane(0, acc)) * kPrime1 + kPrime4;
}
std::uint64_t load64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

std::uint64_t opCacheChecksum(const unsigned char* p, std::size_t size, std::uint64_t seed) {
  const unsigned char* const end = p + size;
  std::uint64_t h = seed + kPrime5;
  if (size >= 32) {
    std::uint64_t a = seed + kPrime1 + kPrime2, b = seed + kPrime2, c = seed, d = seed - kPrime1;
    for (; end - p >= 32; p += 32) {
      a = mixLane(a, load64(p));
      b = mixLane(b, load64(p + 8));
      c = mixLane(c, load64(p + 16));
      d = mixLane(d, load64(p + 24));
    }
    h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18);
    for (const std::uint64_t acc : {a, b, c, d})
      h = mergeLane(h, acc);
  }
  h += size;
  for (; end - p >= 8; p += 8)
    h = rotl(h ^ mixLane(0, load64(p)), 27) * kPrime1 + kPrime4;
  for (; p < end; ++p)
    h = rotl(h ^ (*p * kPrime5), 11) * kPrime1;
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  return h ^ (h >> 32);
}

}  // namespace ps::trace
