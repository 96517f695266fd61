#include "trace/import/GzipInput.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

#include "trace/ProgressThrottle.h"

namespace ps::trace::import {

InputBuffer InputBuffer::withCapacity(std::size_t capacity) {
  InputBuffer buffer;
  // Uninitialised on purpose: the reader or inflater writes every byte before it is used, and
  // zero-filling a few hundred MB first would touch every page twice.
  buffer.data_.reset(new (std::nothrow) char[capacity + kPadding]);
  if (buffer.data_ == nullptr) return buffer;
  buffer.capacity_ = capacity;
  buffer.setSize(0);
  return buffer;
}

void InputBuffer::setSize(std::size_t size) {
  size_ = std::min(size, capacity_);
  std::memset(data_.get() + size_, 0, kPadding);
}

bool InputBuffer::grow(std::size_t capacity) {
  if (capacity <= capacity_) return true;
  std::unique_ptr<char[]> bigger(new (std::nothrow) char[capacity + kPadding]);
  if (bigger == nullptr) return false;
  if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
  data_ = std::move(bigger);
  capacity_ = capacity;
  setSize(size_);
  return true;
}

bool isGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;
// Most output one inflate call may produce: limits, the head check and the cancel flag are
// looked at between calls, so one compressed chunk of a bomb cannot inflate a GB unchecked.
constexpr std::size_t kInflateStep = std::size_t{4} << 20;
// Deflate cannot expand more than about 1032:1; a larger size claim is a corrupt trailer.
constexpr std::size_t kMaxRatio = 1100;

Error outOfMemory(const std::string& label, std::size_t bytes) {
  return makeError(label + ": out of memory (needed " + std::to_string(bytes) + " bytes)");
}

// Reports progress at most once per percent of the whole import; `end` is the fraction of the
// import that reading this file covers.
class ReadProgress {
 public:
  ReadProgress(const ReadControl& control, double end) : control_(control), end_(end) {}
  void update(std::size_t done, std::size_t total) {
    if (total == 0 || end_ <= 0.0) return;
    const double fraction =
        end_ * static_cast<double>(std::min(done, total)) / static_cast<double>(total);
    if (fraction > 0.0 && throttle_.pass(fraction)) control_.report(fraction);
  }

 private:
  const ReadControl& control_;
  double end_;
  ProgressThrottle throttle_;
};

Error cancelled(const std::string& label) {
  return makeError(label + ": import cancelled");
}

// Runs InputOptions::checkHead once, when the first kInputHeadBytes of the content are in.
class HeadGate {
 public:
  explicit HeadGate(const InputOptions& options) : check_(options.checkHead) {}
  Status update(const InputBuffer& out) {
    if (done_ || !check_ || out.size() < kInputHeadBytes) return {};
    done_ = true;
    return check_(std::string_view(out.data(), kInputHeadBytes));
  }

 private:
  const std::function<Status(std::string_view)>& check_;
  bool done_ = false;
};

// Gunzips a stream fed in chunks into an InputBuffer, handling concatenated gzip members (what
// `cat a.gz b.gz` and parallel gzip writers produce). Knows how many compressed bytes it has
// consumed so errors can say where the data went wrong.
class GzipInflater {
 public:
  // Refuses to inflate more than limits.limitFor(compressedBytes).
  GzipInflater(std::string label, const ReadControl& control, const InputOptions& options,
               const GzipLimits& limits, std::uint64_t compressedBytes)
      : label_(std::move(label)),
        control_(control),
        head_(options),
        limits_(limits),
        compressed_(compressedBytes),
        limit_(limits.limitFor(compressedBytes)) {}

  // The most the output buffer needs to hold: one byte past the limit is where it refuses.
  std::size_t maxCapacity() const {
    return static_cast<std::size_t>(
        std::min<std::uint64_t>(limit_ + 1, std::numeric_limits<std::size_t>::max() / 2));
  }
  ~GzipInflater() {
    if (initialised_) inflateEnd(&stream_);
  }
  GzipInflater(const GzipInflater&) = delete;
  GzipInflater& operator=(const GzipInflater&) = delete;

  Status init() {
    std::memset(&stream_, 0, sizeof(stream_));
    // 15 + 16: a gzip wrapper is required (we only get here after seeing its magic bytes).
    if (inflateInit2(&stream_, 15 + 16) != Z_OK) return makeError(label_ + ": cannot start zlib");
    initialised_ = true;
    inMember_ = true;
    return {};
  }

  // Inflates `size` compressed bytes; `last` says no more follow.
  Status feed(const unsigned char* in, std::size_t size, bool last, InputBuffer& out) {
    std::size_t offset = 0;
    while (offset < size && !ignoringTrailer_) {
      if (!inMember_) {
        // Between members: another member must start with the magic byte; anything else is
        // trailing padding that gzip(1) also ignores.
        if (in[offset] != 0x1f) {
          ignoringTrailer_ = true;
          break;
        }
        if (inflateReset(&stream_) != Z_OK) return makeError(label_ + ": cannot reset zlib");
        inMember_ = true;
      }
      const std::size_t take = std::min<std::size_t>(size - offset, 1U << 30);
      stream_.next_in = const_cast<unsigned char*>(in + offset);
      stream_.avail_in = static_cast<uInt>(take);
      PS_TRY(inflateAvailable(out));
      offset += take - stream_.avail_in;
    }
    if (last && inMember_ && !ignoringTrailer_) {
      return makeError(label_ + ": truncated gzip data after " + std::to_string(consumed_) +
                       " bytes");
    }
    return {};
  }

 private:
  // Runs inflate until the input given is used up (or the member ends), growing `out` whenever
  // it fills: a full output may hide pending bytes, so it always asks once more.
  Status inflateAvailable(InputBuffer& out) {
    for (;;) {
      if (out.size() > limit_) return makeError(limits_.refusal(label_, compressed_));
      PS_TRY(head_.update(out));
      if (control_.cancelled()) return cancelled(label_);
      if (out.size() == out.capacity()) {
        const std::size_t wanted = std::min(
            std::max(out.capacity() + out.capacity() / 2, out.capacity() + kChunk), maxCapacity());
        if (!out.grow(wanted)) return outOfMemory(label_, wanted);
      }
      const std::size_t room = std::min(out.capacity() - out.size(), kInflateStep);
      stream_.next_out = reinterpret_cast<unsigned char*>(out.data() + out.size());
      stream_.avail_out = static_cast<uInt>(room);
      const uInt inBefore = stream_.avail_in;
      const int rc = inflate(&stream_, Z_NO_FLUSH);
      out.setSize(out.size() + (room - stream_.avail_out));
      consumed_ += inBefore - stream_.avail_in;
      if (rc == Z_STREAM_END) {
        inMember_ = false;
        if (out.size() > limit_) return makeError(limits_.refusal(label_, compressed_));
        return head_.update(out);
      }
      const bool stalled = rc == Z_BUF_ERROR && stream_.avail_in > 0 && stream_.avail_out > 0;
      if ((rc != Z_OK && rc != Z_BUF_ERROR) || stalled) {
        const char* what = stream_.msg != nullptr ? stream_.msg : "invalid data";
        return makeError(label_ + ": corrupt gzip data at byte " + std::to_string(consumed_) +
                         ": " + what);
      }
      if (stream_.avail_out == 0) continue;
      if (stream_.avail_in == 0) return {};
    }
  }

  std::string label_;
  const ReadControl& control_;
  HeadGate head_;
  const GzipLimits& limits_;
  std::uint64_t compressed_;
  std::uint64_t limit_;
  z_stream stream_{};
  bool initialised_ = false;
  bool inMember_ = false;
  bool ignoringTrailer_ = false;
  std::size_t consumed_ = 0;
};

// A first guess of the decompressed size: the gzip trailer's ISIZE (size mod 2^32 of the last
// member) when it is plausible, else a multiple of the compressed size. Growing later costs a
// copy, so a good guess keeps peak memory at one decompressed copy.
std::size_t guessGunzippedSize(std::size_t compressed, std::uint32_t isize) {
  const std::size_t claimed = isize;
  if (claimed + 1024 >= compressed && claimed <= compressed * kMaxRatio) return claimed + 65536;
  return compressed * 6 + 65536;
}

std::uint32_t littleEndian32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// fread's error from a signal (the CLI's Ctrl-C handler has no SA_RESTART): not a read error,
// the caller looks at the cancel flag and reads on.
bool interruptedRead(std::FILE* file) {
  if (!std::ferror(file) || errno != EINTR) return false;
  std::clearerr(file);
  return true;
}

Result<InputBuffer> gunzipFile(const std::string& path, std::FILE* file, std::size_t fileSize,
                               const ReadControl& control, const InputOptions& options,
                               const GzipLimits& limits) {
  std::uint32_t isize = 0;
  if (fileSize >= 18) {
    unsigned char tail[4];
    if (std::fseek(file, -4, SEEK_END) == 0 && std::fread(tail, 1, 4, file) == 4)
      isize = littleEndian32(tail);
  }
  if (std::fseek(file, 0, SEEK_SET) != 0)
    return makeError(path + ": cannot seek: " + std::strerror(errno));
  GzipInflater inflater(path, control, options, limits, fileSize);
  const std::size_t guess = std::min(guessGunzippedSize(std::max<std::size_t>(fileSize, 1), isize),
                                     inflater.maxCapacity());
  InputBuffer out = InputBuffer::withCapacity(guess);
  if (!out.allocated()) return outOfMemory(path, guess);

  PS_TRY(inflater.init());
  std::vector<unsigned char> chunk(kChunk);
  ReadProgress progress(control, options.progressEnd);
  std::size_t readSoFar = 0;
  for (;;) {
    if (control.cancelled()) return cancelled(path);
    const std::size_t got = std::fread(chunk.data(), 1, chunk.size(), file);
    const bool interrupted = got < chunk.size() && interruptedRead(file);
    if (got < chunk.size() && std::ferror(file))
      return makeError(path + ": read error: " + std::strerror(errno));
    readSoFar += got;
    const bool last = got < chunk.size() && !interrupted;
    PS_TRY(inflater.feed(chunk.data(), got, last, out));
    progress.update(readSoFar, fileSize);
    if (last) break;
  }
  return out;
}

// `head` is checked on the content read (nullptr: not, e.g. for gzip bytes read from a pipe).
Result<InputBuffer> readPlainFile(const std::string& path, std::FILE* file, std::size_t sizeHint,
                                  const ReadControl& control, double progressEnd, HeadGate* head) {
  InputBuffer out = InputBuffer::withCapacity(std::max<std::size_t>(sizeHint, 1));
  if (!out.allocated()) return outOfMemory(path, sizeHint);
  ReadProgress progress(control, progressEnd);
  for (;;) {
    if (control.cancelled()) return cancelled(path);
    if (head) PS_TRY(head->update(out));
    if (out.size() == out.capacity()) {
      // Full: usually the whole file is in. Probe for more before growing, which would copy it
      // all (the file grew, or its size was unknown: a pipe).
      char probe = 0;
      if (std::fread(&probe, 1, 1, file) != 1) {
        if (interruptedRead(file)) continue;
        if (std::ferror(file)) return makeError(path + ": read error: " + std::strerror(errno));
        break;
      }
      const std::size_t wanted = out.capacity() + std::max(out.capacity() / 2, kChunk);
      if (!out.grow(wanted)) return outOfMemory(path, wanted);
      out.data()[out.size()] = probe;
      out.setSize(out.size() + 1);
    }
    const std::size_t want = std::min(out.capacity() - out.size(), 16 * kChunk);
    const std::size_t got = std::fread(out.data() + out.size(), 1, want, file);
    out.setSize(out.size() + got);
    progress.update(out.size(), sizeHint);
    if (got < want) {
      if (interruptedRead(file)) continue;
      if (std::ferror(file)) return makeError(path + ": read error: " + std::strerror(errno));
      break;
    }
  }
  if (head) PS_TRY(head->update(out));
  return out;
}

Result<GzipLimits> limitsOf(const InputOptions& options) {
  if (options.limits) return *options.limits;
  return GzipLimits::fromEnvironment();
}

Result<InputBuffer> inflateBytes(std::string_view bytes, const std::string& label,
                                 const ReadControl& control, const InputOptions& options) {
  auto limits = limitsOf(options);
  if (!limits) return std::move(limits).takeError();
  std::uint32_t isize = 0;
  if (bytes.size() >= 18)
    isize = littleEndian32(reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - 4));
  GzipInflater inflater(label, control, options, *limits, bytes.size());
  const std::size_t guess =
      std::min(guessGunzippedSize(bytes.size(), isize), inflater.maxCapacity());
  InputBuffer out = InputBuffer::withCapacity(guess);
  if (!out.allocated()) return outOfMemory(label, guess);
  PS_TRY(inflater.init());
  PS_TRY(
      inflater.feed(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), true, out));
  return out;
}

}  // namespace

Result<InputBuffer> readInputFile(const std::string& path, const ReadControl& control,
                                  const InputOptions& options) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    return makeError(path + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) return makeError(path + ": is a directory, not a trace file");
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) return makeError(path + ": cannot open: " + std::strerror(errno));
  const bool regular = S_ISREG(info.st_mode);
  const std::size_t size = regular ? static_cast<std::size_t>(info.st_size) : 0;

  unsigned char magic[2] = {0, 0};
  const std::size_t got = std::fread(magic, 1, 2, file.get());
  const bool gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (gzip && regular) {
    auto limits = limitsOf(options);
    if (!limits) return std::move(limits).takeError();
    return gunzipFile(path, file.get(), size, control, options, *limits);
  }
  if (gzip) {
    // A pipe cannot seek back for the trailer: slurp it and gunzip from memory.
    auto raw = readPlainFile(path, file.get(), 0, control, 0.0, nullptr);
    if (!raw) return std::move(raw).takeError();
    std::string bytes(reinterpret_cast<const char*>(magic), 2);
    bytes.append(raw->view());
    return inflateBytes(bytes, path, control, options);
  }
  HeadGate head(options);
  if (regular) {
    if (std::fseek(file.get(), 0, SEEK_SET) != 0)
      return makeError(path + ": cannot seek: " + std::strerror(errno));
    return readPlainFile(path, file.get(), size, control, options.progressEnd, &head);
  }
  auto rest = readPlainFile(path, file.get(), 0, control, options.progressEnd, nullptr);
  if (!rest) return rest;
  InputBuffer out = InputBuffer::withCapacity(rest->size() + got);
  if (!out.allocated()) return outOfMemory(path, rest->size() + got);
  std::memcpy(out.data(), magic, got);
  std::memcpy(out.data() + got, rest->data(), rest->size());
  out.setSize(rest->size() + got);
  PS_TRY(head.update(out));
  return out;
}

Result<InputBuffer> loadInputBytes(std::string_view bytes, const std::string& label,
                                   const ReadControl& control, const InputOptions& options) {
  if (isGzip(bytes)) return inflateBytes(bytes, label, control, options);
  InputBuffer out = InputBuffer::withCapacity(bytes.size());
  if (!out.allocated()) return outOfMemory(label, bytes.size());
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  out.setSize(bytes.size());
  HeadGate head(options);
  PS_TRY(head.update(out));
  return out;
}

}  // namespace ps::trace::import
