#include "trace/FileText.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "trace/Units.h"

namespace ps::trace {
namespace {

// What a non-regular file is, for the message.
const char* kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

Error notRegular(const std::string& path, mode_t mode, std::string_view what) {
  return Error{path + ": is " + kindOf(mode) + ", not a regular file; a " + std::string(what) +
               " must be a file"};
}

Error tooBig(const std::string& path, std::uint64_t size, std::uint64_t maxBytes,
             std::string_view what, bool atLeast) {
  return Error{path + ": " + (atLeast ? "over " : "") +
               formatBytes(static_cast<std::int64_t>(size)) + ", more than the " +
               formatBytes(static_cast<std::int64_t>(maxBytes)) + " a " + std::string(what) +
               " may hold"};
}

// Closes the descriptor on every way out.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string_view withoutBom(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return text;
}

Status checkRegularOrAbsent(const std::string& path, std::string_view what) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return {};  // absent (or unreadable: the opener says)
  if (!S_ISREG(info.st_mode)) return notRegular(path, info.st_mode, what);
  return {};
}

Result<std::string> readTextFile(const std::string& path, std::uint64_t maxBytes,
                                 std::string_view what) {
  // Looked at before opening: opening a device can have effects of its own.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return Error{path + ": cannot open for reading"};
  if (!S_ISREG(info.st_mode)) return notRegular(path, info.st_mode, what);
  // Non-blocking, so that a FIFO swapped in after the stat cannot hang the open; fstat then
  // checks the file actually opened.
  Descriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (file.fd < 0)
    return Error{path + ": cannot open for reading: " + std::string(std::strerror(errno))};
  if (::fstat(file.fd, &info) != 0)
    return Error{path + ": cannot read: " + std::string(std::strerror(errno))};
  if (!S_ISREG(info.st_mode)) return notRegular(path, info.st_mode, what);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (size > maxBytes) return tooBig(path, size, maxBytes, what, false);

  std::string text;
  text.resize(static_cast<std::size_t>(size));
  std::size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      // The file may have grown since fstat: one byte past the cap tells.
      if (text.size() > maxBytes) return tooBig(path, text.size(), maxBytes, what, true);
      text.resize(std::min<std::uint64_t>(maxBytes + 1, text.size() + 64 * 1024));
    }
    const ssize_t n = ::read(file.fd, text.data() + got, text.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{path + ": cannot read: " + std::string(std::strerror(errno))};
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  return text;
}

Status writeTextFile(const std::string& path, std::string_view text, std::string_view what) {
  PS_TRY(checkRegularOrAbsent(path, what));
  std::string tmp = path + ".tmp-XXXXXX";
  Descriptor file{::mkstemp(tmp.data())};
  if (file.fd < 0)
    return Error{path + ": cannot open for writing: " + std::string(std::strerror(errno))};
  auto failed = [&](const char* doing) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Error{path + ": " + doing + ": " + why};
  };
  ::fchmod(file.fd, 0644);  // mkstemp's 0600 would hide a shared result from its readers
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(file.fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return failed("write failed");
    done += static_cast<std::size_t>(n);
  }
  if (::close(file.fd) != 0) {
    file.fd = -1;
    return failed("write failed");
  }
  file.fd = -1;
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return failed("cannot replace the file");
  return {};
}

}  // namespace ps::trace
