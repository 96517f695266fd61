// HostBatches (runtime/model/HostBatches.h): a GPU stage's synthetic inputs and targets made on
// several threads and one micro-batch ahead must be exactly SyntheticData's numbers, whatever
// order the micro-batches are asked in, so that cuda and cpu runs keep training on the same data.
#include "runtime/model/HostBatches.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "runtime/model/Rng.h"

namespace ps::runtime {
namespace {

ModelConfig batchConfig(BlockType block) {
  ModelConfig c;
  c.block = block;
  c.hidden = 24;
  c.seq = 5;
  c.microbatchSize = 3;
  c.seed = 7;
  return c;
}

std::vector<float> reference(const ModelConfig& c, HostBatches::Kind kind, MicrobatchKey key) {
  std::vector<float> v(static_cast<std::size_t>(c.activationElems()));
  if (kind == HostBatches::Kind::Input)
    SyntheticData(c).input(key, v.data());
  else
    SyntheticData(c).target(key, v.data());
  return v;
}

TEST(HostBatches, SkippingARngStreamLandsWhereCallingItWould) {
  Rng called(Rng::key(1, 2, 3)), skipped(Rng::key(1, 2, 3));
  for (int i = 0; i < 37; ++i)
    called.next();
  skipped.skip(37);
  EXPECT_EQ(called.next(), skipped.next());
}

TEST(HostBatches, InputPiecesAreTheWholeInputsNumbers) {
  const ModelConfig c = batchConfig(BlockType::Transformer);
  const auto whole = reference(c, HostBatches::Kind::Input, {2, 1});
  const SyntheticData data(c);
  std::vector<float> pieces(whole.size());
  const long n = c.activationElems();
  for (long begin : {0L, 7L, 100L, 301L}) {
    const long end = begin == 301L ? n : (begin == 0 ? 7L : begin == 7L ? 100L : 301L);
    data.inputRange({2, 1}, pieces.data() + begin, begin, end);
  }
  EXPECT_EQ(pieces, whole);
}

TEST(HostBatches, EveryBatchIsSyntheticDatasInAndOutOfOrder) {
  for (BlockType block : {BlockType::Mlp, BlockType::Transformer}) {
    const ModelConfig c = batchConfig(block);
    for (auto kind : {HostBatches::Kind::Input, HostBatches::Kind::Target}) {
      for (int threads : {1, 4}) {
        HostBatches batches(kind, c, /*microbatchesPerStep=*/3, threads);
        // In order across a step's end (made ahead), skipping one, going back, far ahead, and a
        // key prepared before it is taken.
        const MicrobatchKey keys[] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 2},
                                      {1, 0}, {4, 1}, {4, 2}, {5, 0}};
        for (const MicrobatchKey key : keys) {
          SCOPED_TRACE(::testing::Message()
                       << "block " << static_cast<int>(block) << ", " << threads << " threads, "
                       << (kind == HostBatches::Kind::Input ? "input" : "target") << " of ("
                       << key.step << ", " << key.microbatch << ")");
          if (key.step == 4) batches.prepare(key);
          EXPECT_EQ(batches.take(key), reference(c, kind, key));
        }
      }
    }
  }
}

// The worker keeps up to a step's micro-batches ready: after the first take it makes the rest of
// the step without being asked, so later takes find them made.
TEST(HostBatches, TheWorkerMakesTheStepAhead) {
  const ModelConfig c = batchConfig(BlockType::Mlp);
  HostBatches batches(HostBatches::Kind::Input, c, /*microbatchesPerStep=*/4, 2);
  EXPECT_EQ(batches.take({0, 0}), reference(c, HostBatches::Kind::Input, {0, 0}));
  for (int mb = 1; mb < 4; ++mb)
    EXPECT_TRUE(batches.madeAhead({0, mb}, std::chrono::seconds(10))) << "micro-batch " << mb;
  EXPECT_FALSE(batches.madeAhead({0, 0}, std::chrono::milliseconds(0))) << "taken already";
}

}  // namespace
}  // namespace ps::runtime
