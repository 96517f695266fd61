#include "trace/import/InputSources.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace ps::trace::import {

namespace {

constexpr std::size_t kCompressedChunk = std::size_t{1} << 20;
// Most output one inflate call may produce: limits and the cancel flag are looked at between
// calls, so one compressed chunk of a bomb cannot inflate a GB unchecked.
constexpr std::size_t kInflateStep = std::size_t{4} << 20;

Error cancelled(const std::string& label) {
  return makeError(label + ": import cancelled");
}

class FileSource final : public ByteSource {
 public:
  FileSource(std::FILE* file, std::string path, std::uint64_t size, const ReadControl& control)
      : file_(file), path_(std::move(path)), size_(size), control_(control) {}
  ~FileSource() override { std::fclose(file_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  Result<std::size_t> read(char* dst, std::size_t max) override {
    for (;;) {
      const std::size_t got = std::fread(dst, 1, max, file_);
      done_ += got;
      if (got > 0 || !std::ferror(file_)) return got;
      // fread's error from a signal (the CLI's Ctrl-C handler has no SA_RESTART) is no read
      // error: the cancel flag says whether to stop.
      if (errno != EINTR) return makeError(path_ + ": read error: " + std::strerror(errno));
      std::clearerr(file_);
      if (control_.cancelled()) return cancelled(path_);
    }
  }
  double fraction() const override {
    return size_ == 0 ? 0.0
                      : static_cast<double>(std::min(done_, size_)) / static_cast<double>(size_);
  }

 private:
  std::FILE* file_;
  std::string path_;
  std::uint64_t size_;
  const ReadControl& control_;
  std::uint64_t done_ = 0;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  Result<std::size_t> read(char* dst, std::size_t max) override {
    const std::size_t n = std::min(max, bytes_.size() - done_);
    if (n > 0) std::memcpy(dst, bytes_.data() + done_, n);
    done_ += n;
    return n;
  }
  double fraction() const override {
    return bytes_.empty() ? 1.0 : static_cast<double>(done_) / static_cast<double>(bytes_.size());
  }

 private:
  std::string_view bytes_;
  std::size_t done_ = 0;
};

class PrefixedSource final : public ByteSource {
 public:
  PrefixedSource(std::string prefix, std::unique_ptr<ByteSource> rest)
      : prefix_(std::move(prefix)), rest_(std::move(rest)) {}
  Result<std::size_t> read(char* dst, std::size_t max) override {
    if (done_ < prefix_.size()) {
      const std::size_t n = std::min(max, prefix_.size() - done_);
      std::memcpy(dst, prefix_.data() + done_, n);
      done_ += n;
      return n;
    }
    return rest_->read(dst, max);
  }
  double fraction() const override { return rest_->fraction(); }

 private:
  std::string prefix_;
  std::unique_ptr<ByteSource> rest_;
  std::size_t done_ = 0;
};

// Inflates the raw source's gzip members into the caller's buffer, one bounded step at a time.
class GunzipSource final : public ByteSource {
 public:
  GunzipSource(std::unique_ptr<ByteSource> raw, std::string label, std::uint64_t compressedSize,
               const GzipLimits& limits, const ReadControl& control)
      : raw_(std::move(raw)),
        label_(std::move(label)),
        compressedSize_(compressedSize),
        limits_(limits),
        control_(control),
        chunk_(kCompressedChunk) {
    // 15 + 16: a gzip wrapper is required (we only get here after seeing its magic bytes).
    initialised_ = inflateInit2(&stream_, 15 + 16) == Z_OK;
  }
  ~GunzipSource() override {
    if (initialised_) inflateEnd(&stream_);
  }
  GunzipSource(const GunzipSource&) = delete;
  GunzipSource& operator=(const GunzipSource&) = delete;

  Result<std::size_t> read(char* dst, std::size_t max) override {
    if (!initialised_) return makeError(label_ + ": cannot start zlib");
    std::size_t produced = 0;
    while (produced == 0 && !finished_) {
      if (control_.cancelled()) return cancelled(label_);
      if (available_ == 0 && !outputPending_) {
        PS_TRY(refill());
        continue;
      }
      if (!inMember_) {
        if (available_ == 0) continue;  // refilled next time round (or finished)
        // Between members: another member must start with the magic byte; anything else is
        // trailing padding that gzip(1) also ignores.
        if (*next_ != 0x1f) {
          finished_ = true;
          break;
        }
        if (inflateReset(&stream_) != Z_OK) return makeError(label_ + ": cannot reset zlib");
        inMember_ = true;
      }
      const std::size_t room = std::min(max - produced, kInflateStep);
      stream_.next_in = next_;
      stream_.avail_in = static_cast<uInt>(available_);
      stream_.next_out = reinterpret_cast<unsigned char*>(dst + produced);
      stream_.avail_out = static_cast<uInt>(room);
      const int rc = inflate(&stream_, Z_NO_FLUSH);
      const std::size_t used = available_ - stream_.avail_in;
      next_ += used;
      available_ -= used;
      consumed_ += used;
      produced += room - stream_.avail_out;
      outputPending_ = stream_.avail_out == 0;  // zlib may hold more for the next call
      inflated_ += room - stream_.avail_out;
      if (inflated_ > limits_.limitFor(std::max(compressedSize_, consumed_)))
        return makeError(limits_.refusal(label_, std::max(compressedSize_, consumed_)));
      if (rc == Z_STREAM_END) {
        inMember_ = false;
        outputPending_ = false;
        continue;
      }
      const bool stalled = rc == Z_BUF_ERROR && available_ > 0 && stream_.avail_out > 0;
      if ((rc != Z_OK && rc != Z_BUF_ERROR) || stalled) {
        const char* what = stream_.msg != nullptr ? stream_.msg : "invalid data";
        return makeError(label_ + ": corrupt gzip data at byte " + std::to_string(consumed_) +
                         ": " + what);
      }
    }
    return produced;
  }

  double fraction() const override { return raw_->fraction(); }

 private:
  // The next compressed chunk; at the raw end, done or (inside a member) truncated.
  Status refill() {
    if (rawDone_) {
      if (inMember_)
        return makeError(label_ + ": truncated gzip data after " + std::to_string(consumed_) +
                         " bytes");
      finished_ = true;
      return {};
    }
    auto got = raw_->read(reinterpret_cast<char*>(chunk_.data()), chunk_.size());
    if (!got) return std::move(got).takeError();
    if (*got == 0) rawDone_ = true;
    next_ = chunk_.data();
    available_ = *got;
    return {};
  }

  std::unique_ptr<ByteSource> raw_;
  std::string label_;
  std::uint64_t compressedSize_;
  GzipLimits limits_;
  const ReadControl& control_;
  std::vector<unsigned char> chunk_;
  z_stream stream_{};
  bool initialised_ = false;
  bool inMember_ = true;  // the source starts with a member (its magic was seen)
  bool rawDone_ = false;
  bool finished_ = false;
  bool outputPending_ = false;
  unsigned char* next_ = nullptr;
  std::size_t available_ = 0;
  std::uint64_t consumed_ = 0;
  std::uint64_t inflated_ = 0;
};

}  // namespace

std::unique_ptr<ByteSource> fileSource(std::FILE* file, std::string path, std::uint64_t size,
                                       const ReadControl& control) {
  return std::make_unique<FileSource>(file, std::move(path), size, control);
}

std::unique_ptr<ByteSource> prefixedSource(std::string prefix, std::unique_ptr<ByteSource> rest) {
  return std::make_unique<PrefixedSource>(std::move(prefix), std::move(rest));
}

std::unique_ptr<ByteSource> memorySource(std::string_view bytes) {
  return std::make_unique<MemorySource>(bytes);
}

std::unique_ptr<ByteSource> gunzipSource(std::unique_ptr<ByteSource> raw, std::string label,
                                         std::uint64_t compressedSize, const GzipLimits& limits,
                                         const ReadControl& control) {
  return std::make_unique<GunzipSource>(std::move(raw), std::move(label), compressedSize, limits,
                                        control);
}

}  // namespace ps::trace::import
