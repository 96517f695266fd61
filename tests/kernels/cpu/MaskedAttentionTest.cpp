// Masked attention (DynaPipe's padded and packed rows, TeraPipe's slices) against the causal
// kernel it generalises: one whole sequence per row gives the causal kernel's numbers; a sequence
// cut into slices with a prefix cache gives the whole sequence's context and gradients; sequences
// packed side by side in a row, padding after them, give each sequence's own numbers.
#include "kernels/cpu/MaskedAttention.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/Attention.h"
#include "tests/kernels/GradCheck.h"

namespace ps::kernels {
namespace {

constexpr int kBatch = 2, kSeq = 5, kHidden = 4, kHeads = 2;

// The causal kernel over [kBatch × kSeq] with Wo = I and bo = 0, so that its output is the
// attention context and dOut is dContext.
struct Reference {
  AttentionShape s{kBatch, kSeq, kHidden, kHeads};
  std::vector<float> qkv = std::vector<float>(s.qkvElems());
  std::vector<float> ctx = std::vector<float>(s.ctxElems());
  std::vector<float> dCtx;
  std::vector<float> dQkv = std::vector<float>(s.qkvElems());

  explicit Reference(std::vector<float> dContext) : dCtx(std::move(dContext)) {
    const std::vector<float> x = test::randomVector(s.rows() * kHidden, 7);
    const std::vector<float> wqkv = test::randomVector(3 * kHidden * kHidden, 8, 0.6f);
    const std::vector<float> bqkv = test::randomVector(3 * kHidden, 9, 0.2f);
    std::vector<float> wo(kHidden * kHidden, 0.0f), bo(kHidden, 0.0f);
    for (int i = 0; i < kHidden; ++i)
      wo[static_cast<std::size_t>(i * kHidden + i)] = 1.0f;
    std::vector<float> probs(s.probsElems()), out(s.ctxElems()), dx(s.rows() * kHidden);
    std::vector<float> scratch(s.backwardScratchElems());
    const AttentionWeights w{wqkv.data(), bqkv.data(), wo.data(), bo.data()};
    const AttentionSaved saved{qkv.data(), probs.data(), ctx.data()};
    attentionForward(s, x.data(), w, saved, out.data());
    attentionBackwardInput(s, w, saved, dCtx.data(), dQkv.data(), dx.data(), scratch.data());
  }
  // Token t of row b: its qkv (3H floats) and ctx (H floats).
  const float* qkvAt(int b, int t) const { return qkv.data() + (b * kSeq + t) * 3 * kHidden; }
};

void expectNear(const float* got, const float* want, int n, const char* what, int token) {
  for (int i = 0; i < n; ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5f) << what << " of token " << token << " [" << i << "]";
}

TEST(MaskedAttention, OneSequencePerRowIsTheCausalKernel) {
  const Reference ref(test::randomVector(kBatch * kSeq * kHidden, 10));
  const MaskedAttentionShape ms{kBatch, kSeq, kHidden, kHeads, 0};
  const std::vector<int> starts(kBatch * kSeq, 0);
  std::vector<float> probs(ms.probsElems()), ctx(ms.tokens() * kHidden), dQkv(ref.qkv.size());
  maskedAttentionForward(ms, starts.data(), ref.qkv.data(), nullptr, probs.data(), ctx.data());
  maskedAttentionBackward(ms, starts.data(), ref.qkv.data(), probs.data(), ref.dCtx.data(), nullptr,
                          dQkv.data());
  expectNear(ctx.data(), ref.ctx.data(), static_cast<int>(ctx.size()), "ctx", 0);
  expectNear(dQkv.data(), ref.dQkv.data(), static_cast<int>(dQkv.size()), "dQkv", 0);
}

TEST(MaskedAttention, SlicesWithAPrefixCacheAreTheWholeSequence) {
  const Reference ref(test::randomVector(kBatch * kSeq * kHidden, 11));
  const std::vector<int> lengths{2, 3};
  std::vector<float> k(kBatch * kSeq * kHidden), v(k.size()), dk(k.size()), dv(k.size());
  AttentionPrefix prefix{k.data(), v.data(), dk.data(), dv.data(), kSeq};
  struct Slice {
    MaskedAttentionShape shape;
    std::vector<float> qkv, probs, ctx, dCtx, dQkv;
  };
  std::vector<Slice> slices;
  int first = 0;
  for (int len : lengths) {
    Slice sl{{kBatch, len, kHidden, kHeads, first}, {}, {}, {}, {}, {}};
    for (int b = 0; b < kBatch; ++b)
      for (int t = first; t < first + len; ++t) {
        sl.qkv.insert(sl.qkv.end(), ref.qkvAt(b, t), ref.qkvAt(b, t) + 3 * kHidden);
        const float* d = ref.dCtx.data() + (b * kSeq + t) * kHidden;
        sl.dCtx.insert(sl.dCtx.end(), d, d + kHidden);
      }
    sl.probs.resize(static_cast<std::size_t>(sl.shape.probsElems()));
    sl.ctx.resize(static_cast<std::size_t>(sl.shape.tokens() * kHidden));
    sl.dQkv.resize(sl.qkv.size());
    const std::vector<int> starts(static_cast<std::size_t>(sl.shape.tokens()), 0);
    maskedAttentionForward(sl.shape, starts.data(), sl.qkv.data(), &prefix, sl.probs.data(),
                           sl.ctx.data());
    slices.push_back(std::move(sl));
    first += len;
  }
  for (auto it = slices.rbegin(); it != slices.rend(); ++it) {  // backwards: the last slice first
    const std::vector<int> starts(static_cast<std::size_t>(it->shape.tokens()), 0);
    maskedAttentionBackward(it->shape, starts.data(), it->qkv.data(), it->probs.data(),
                            it->dCtx.data(), &prefix, it->dQkv.data());
  }
  for (const Slice& sl : slices)
    for (int b = 0; b < kBatch; ++b)
      for (int c = 0; c < sl.shape.cols; ++c) {
        const int t = sl.shape.prefix + c;
        const long at = b * sl.shape.cols + c;
        expectNear(sl.ctx.data() + at * kHidden, ref.ctx.data() + (b * kSeq + t) * kHidden, kHidden,
                   "ctx", t);
        expectNear(sl.dQkv.data() + at * 3 * kHidden,
                   ref.dQkv.data() + (b * kSeq + t) * 3 * kHidden, 3 * kHidden, "dQkv", t);
      }
}

TEST(MaskedAttention, PackedSequencesAndPaddingDoNotMix) {
  // Sequence A is row 0's first 2 tokens, B row 1's first 3 (causal: they are sequences of their
  // own); dContext is zero after them so the reference's gradients are theirs alone.
  std::vector<float> dCtx = test::randomVector(kBatch * kSeq * kHidden, 12);
  for (int b = 0; b < kBatch; ++b)
    for (int t = (b == 0 ? 2 : 3); t < kSeq; ++t)
      for (int j = 0; j < kHidden; ++j)
        dCtx[static_cast<std::size_t>((b * kSeq + t) * kHidden + j)] = 0.0f;
  const Reference ref(dCtx);
  const std::vector<std::pair<int, int>> tokens{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {1, 2}};
  const MaskedAttentionShape ms{1, 6, kHidden, kHeads, 0};  // A A B B B pad
  const std::vector<int> starts{0, 0, 2, 2, 2, 5};
  std::vector<float> qkv, packedDCtx;
  for (auto [b, t] : tokens) {
    qkv.insert(qkv.end(), ref.qkvAt(b, t), ref.qkvAt(b, t) + 3 * kHidden);
    const float* d = dCtx.data() + (b * kSeq + t) * kHidden;
    packedDCtx.insert(packedDCtx.end(), d, d + kHidden);
  }
  const std::vector<float> pad = test::randomVector(3 * kHidden, 13, 5.0f);
  qkv.insert(qkv.end(), pad.begin(), pad.end());
  packedDCtx.insert(packedDCtx.end(), pad.begin(), pad.begin() + kHidden);  // not zero
  std::vector<float> probs(ms.probsElems()), ctx(ms.tokens() * kHidden), dQkv(qkv.size());
  maskedAttentionForward(ms, starts.data(), qkv.data(), nullptr, probs.data(), ctx.data());
  maskedAttentionBackward(ms, starts.data(), qkv.data(), probs.data(), packedDCtx.data(), nullptr,
                          dQkv.data());
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const auto [b, t] = tokens[i];
    const int token = static_cast<int>(i);
    expectNear(ctx.data() + i * kHidden, ref.ctx.data() + (b * kSeq + t) * kHidden, kHidden, "ctx",
               token);
    expectNear(dQkv.data() + i * 3 * kHidden, ref.dQkv.data() + (b * kSeq + t) * 3 * kHidden,
               3 * kHidden, "dQkv", token);
  }
}

}  // namespace
}  // namespace ps::kernels
