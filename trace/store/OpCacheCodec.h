#pragma once
// The op cache's block format (OpCache.h): one lane's ops, each column as unsigned integers of
// the narrowest width that holds the block's values (OpCacheCodec.cpp says which column is
// stored how).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "trace/RunTrace.h"

namespace ps::trace {

// Ops [from, from + n) of `c` as one block.
std::vector<unsigned char> encodeOpBlock(const OpColumns& c, std::size_t from, std::size_t n);

// Appends a block of `n` ops of `lane` to `c` (capacity reserved by the caller); false when it
// does not decode to exactly that: a short or unknown column, a kind of another lane, ops out of
// order, a name index past `names`.
bool decodeOpBlock(const unsigned char* p, std::size_t size, std::size_t n, Lane lane,
                   std::size_t names, OpColumns& c);

// A 64-bit checksum of `size` bytes (the XXH64 construction: four multiply-rotate lanes over 32
// bytes at a time, then an avalanche), about 10 GB/s: a 10M-op run's ~130 MB of blocks in a
// few milliseconds per thread. Any change of the bytes changes it but with chance 2^-64.
std::uint64_t opCacheChecksum(const unsigned char* p, std::size_t size, std::uint64_t seed);

}  // namespace ps::trace
