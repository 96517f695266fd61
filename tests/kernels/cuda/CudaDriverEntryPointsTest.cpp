// The driver entry-point table (kernels/cuda/CudaDriverApi.h) against the toolkit's
// cudaTypedefs.h, read from the include directory the build compiled against: a function looked
// up below the version that introduced it stays null on every driver (cuGreenCtxStreamCreate at
// 12040 did: --sm-split never had green contexts), and only a GPU run would show it otherwise.

#include <gtest/gtest.h>

#ifdef PIPESCOPE_TEST_HAVE_CUDA

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>

#include "kernels/cuda/CudaDriverApi.h"

namespace ps::kernels {
namespace {

std::string cudaTypedefsHeader() {
  std::ifstream in(PIPESCOPE_TEST_CUDA_TYPEDEFS);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The versions cudaTypedefs.h has a typedef for, e.g. "12040 12050" for cuStreamGetCtx's two.
std::string typedefVersions(const std::string& header, const std::string& symbol) {
  const std::string prefix = "PFN_" + symbol + "_v";
  std::string out;
  for (std::size_t at = header.find(prefix); at != std::string::npos;
       at = header.find(prefix, at + 1)) {
    std::size_t end = at + prefix.size();
    while (end < header.size() && std::isdigit(static_cast<unsigned char>(header[end])))
      ++end;
    // Only the name itself: PFN_cuX_v12040 is not PFN_cuX_v12040_ptsz.
    if (end < header.size() &&
        (std::isalnum(static_cast<unsigned char>(header[end])) || header[end] == '_'))
      continue;
    const std::string version = header.substr(at + prefix.size(), end - at - prefix.size());
    if (!version.empty() && (" " + out + " ").find(" " + version + " ") == std::string::npos)
      out += (out.empty() ? "" : " ") + version;
  }
  return out;
}

TEST(CudaDriverEntryPoints, EveryVersionIsOneTheHeaderHasATypedefFor) {
  const std::string header = cudaTypedefsHeader();
  ASSERT_FALSE(header.empty()) << "cannot read " << PIPESCOPE_TEST_CUDA_TYPEDEFS;
  for (const cuda::DriverEntryPoint& entry : cuda::kDriverEntryPoints) {
    const std::string name =
        std::string("PFN_") + entry.symbol + "_v" + std::to_string(entry.version);
    const std::string versions = typedefVersions(header, entry.symbol);
    EXPECT_NE((" " + versions + " ").find(" " + std::to_string(entry.version) + " "),
              std::string::npos)
        << entry.symbol << " is looked up at " << entry.version << ", but "
        << PIPESCOPE_TEST_CUDA_TYPEDEFS << " has no " << name << " (its versions: " << versions
        << ")";
  }
}

TEST(CudaDriverEntryPoints, GreenContextStreamsAreLookedUpWhereTheyAppeared) {
  // The one the old single version (12040) got wrong.
  const std::string header = cudaTypedefsHeader();
  EXPECT_EQ(typedefVersions(header, "cuGreenCtxStreamCreate"), "12050");
  int version = 0;
  for (const cuda::DriverEntryPoint& entry : cuda::kDriverEntryPoints)
    if (std::string(entry.symbol) == "cuGreenCtxStreamCreate") version = entry.version;
  EXPECT_EQ(version, 12050);
}

}  // namespace
}  // namespace ps::kernels

#endif  // PIPESCOPE_TEST_HAVE_CUDA
