#pragma once
// Whether the libnccl found at run time can serve code built against our nccl.h: plain arithmetic
// on NCCL_VERSION_CODE numbers (runtime/cuda/CudaNcclApi.cpp asks the library with
// ncclGetVersion), kept apart so it is tested without NCCL.

#include <string>

namespace ps::runtime {

// "2.28.9" for a version code: major·10000 + minor·100 + patch, or major·1000 + minor·100 + patch
// before NCCL 2.9 (nccl.h's NCCL_VERSION).
std::string ncclVersionText(int code);

// "" when a library of version `libraryCode` serves a build against `headerCode`: same major
// version, and a minor version at least the header's (the functions and struct layouts we call
// may be newer than an older library's). Else one line naming both versions and `soname`.
std::string ncclVersionProblem(int libraryCode, int headerCode, const std::string& soname);

}  // namespace ps::runtime
