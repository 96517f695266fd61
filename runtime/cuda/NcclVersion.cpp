#include "runtime/cuda/NcclVersion.h"

namespace ps::runtime {
namespace {

struct Version {
  int major = 0, minor = 0, patch = 0;
};

Version decode(int code) {
  if (code >= 10000) return {code / 10000, code % 10000 / 100, code % 100};
  return {code / 1000, code % 1000 / 100, code % 100};
}

}  // namespace

std::string ncclVersionText(int code) {
  const Version v = decode(code);
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

std::string ncclVersionProblem(int libraryCode, int headerCode, const std::string& soname) {
  const Version lib = decode(libraryCode);
  const Version header = decode(headerCode);
  if (lib.major == header.major && lib.minor >= header.minor) return "";
  const std::string wanted = std::to_string(header.major) + "." + std::to_string(header.minor);
  return soname + " is NCCL " + ncclVersionText(libraryCode) + ", but PipeScope was built with " +
         "nccl.h of NCCL " + ncclVersionText(headerCode) + ": install NCCL " + wanted +
         " or newer (" + std::to_string(header.major) + ".x) or put one first on LD_LIBRARY_PATH";
}

}  // namespace ps::runtime
