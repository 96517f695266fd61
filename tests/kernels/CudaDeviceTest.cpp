// CudaDevice's math against CpuDevice: every kernel runs on both with the same random inputs
// (shapes that are not multiples of 32 among them) and the results must agree: fp32 within 1e-5
// and bf16 GEMM-based ops within 2e-2, relative to the largest reference value; reductions are
// deterministic. Without a CUDA device every test skips and says why.

#ifdef PIPESCOPE_TEST_HAVE_CUDA

#include <cstdint>
#include <cstring>

#include "tests/kernels/CudaDeviceTestSupport.h"

namespace ps::kernels {
namespace {

using namespace cudatest;  // NOLINT: the shared fixture and helpers of this test binary

TEST_P(CudaDeviceTest, ElementwiseMatchesCpu) {
  for (long n : {1L, 1000L, 1234567L}) {
    SCOPED_TRACE(n);
    const Vec a = randomVector(n, 2), b = randomVector(n, 3, 2.0f);
    Vec out(n), y = b, g(n), dx = a;
    DeviceVec da(*gpu_, a), db(*gpu_, b), dout(*gpu_, Vec(n)), dy(*gpu_, b), dg(*gpu_, Vec(n)),
        ddx(*gpu_, a), dfill(*gpu_, Vec(n));
    cpu_.residualAdd(a.data(), b.data(), out.data(), n);
    gpu_->residualAdd(da.get(), db.get(), dout.get(), n);
    EXPECT_CLOSE(out, dout, kTolerance);
    cpu_.axpy(-0.7f, a.data(), y.data(), n);
    gpu_->axpy(-0.7f, da.get(), dy.get(), n);
    EXPECT_CLOSE(y, dy, kTolerance);
    cpu_.geluForward(b.data(), g.data(), n);
    gpu_->geluForward(db.get(), dg.get(), n);
    EXPECT_CLOSE(g, dg, kTolerance);
    for (bool acc : {false, true}) {
      cpu_.geluBackward(b.data(), a.data(), dx.data(), n, acc);
      gpu_->geluBackward(db.get(), da.get(), ddx.get(), n, acc);
      EXPECT_CLOSE(dx, ddx, kTolerance) << " accumulate " << acc;
    }
    gpu_->fill(dfill.get(), 0.25f, n);
    EXPECT_CLOSE(Vec(n, 0.25f), dfill, 0.0);
  }
}

// LIF firing rates must agree bit for bit: one contracted rounding flips a spike (a rate step of
// 1/steps), so every operation is rounded on its own on both sides.
TEST_P(CudaDeviceTest, LifMatchesCpuExactly) {
  for (long n : {1L, 1000L, 123457L})
    for (int steps : {1, 4, 16}) {
      SCOPED_TRACE(n);
      const Vec h = randomVector(n, 5, 2.0f), d = randomVector(n, 6);
      Vec rate(n), dh = d;
      DeviceVec dev(*gpu_, h), drate(*gpu_, Vec(n)), dd(*gpu_, d), ddh(*gpu_, d);
      cpu_.lifForward(h.data(), rate.data(), n, steps);
      gpu_->lifForward(dev.get(), drate.get(), n, steps);
      EXPECT_CLOSE(rate, drate, 0.0) << " steps " << steps;
      for (bool acc : {false, true}) {
        cpu_.lifBackward(h.data(), d.data(), dh.data(), n, steps, acc);
        gpu_->lifBackward(dev.get(), dd.get(), ddh.get(), n, steps, acc);
        EXPECT_CLOSE(dh, ddh, kTolerance) << " steps " << steps << " accumulate " << acc;
      }
    }
}

struct LinearShape {
  int rows, in, out;
};

TEST_P(CudaDeviceTest, LinearMatchesCpu) {
  for (const LinearShape s : {LinearShape{24, 20, 20}, {3, 4, 5}, {130, 70, 33}, {300, 64, 96}}) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.in << "->" << s.out);
    const Vec x = randomVector(s.rows * s.in, 1), w = randomVector(s.out * s.in, 2, 0.5f);
    const Vec b = randomVector(s.out, 3), dy = randomVector(s.rows * s.out, 4);
    Vec y(s.rows * s.out), dx = randomVector(s.rows * s.in, 5);
    Vec dw = randomVector(s.out * s.in, 6), dbias = randomVector(s.out, 7);
    DeviceVec dX(*gpu_, x), dW(*gpu_, w), dB(*gpu_, b), dDy(*gpu_, dy), dY(*gpu_, y),
        dDx(*gpu_, dx), dDw(*gpu_, dw), dDb(*gpu_, dbias);
    cpu_.linearForward(x.data(), w.data(), b.data(), y.data(), s.rows, s.in, s.out);
    gpu_->linearForward(dX.get(), dW.get(), dB.get(), dY.get(), s.rows, s.in, s.out);
    EXPECT_CLOSE(y, dY, gemmTolerance());
    cpu_.linearForward(x.data(), w.data(), nullptr, y.data(), s.rows, s.in, s.out);
    gpu_->linearForward(dX.get(), dW.get(), nullptr, dY.get(), s.rows, s.in, s.out);
    EXPECT_CLOSE(y, dY, gemmTolerance());
    for (bool acc : {true, false}) {
      cpu_.linearBackwardInput(dy.data(), w.data(), dx.data(), s.rows, s.in, s.out, acc);
      gpu_->linearBackwardInput(dDy.get(), dW.get(), dDx.get(), s.rows, s.in, s.out, acc);
      EXPECT_CLOSE(dx, dDx, gemmTolerance()) << " accumulate " << acc;
    }
    // Twice: the weight gradients add; the second time without a bias.
    cpu_.linearBackwardWeight(dy.data(), x.data(), dw.data(), dbias.data(), s.rows, s.in, s.out);
    gpu_->linearBackwardWeight(dDy.get(), dX.get(), dDw.get(), dDb.get(), s.rows, s.in, s.out);
    cpu_.linearBackwardWeight(dy.data(), x.data(), dw.data(), nullptr, s.rows, s.in, s.out);
    gpu_->linearBackwardWeight(dDy.get(), dX.get(), dDw.get(), nullptr, s.rows, s.in, s.out);
    EXPECT_CLOSE(dw, dDw, gemmTolerance());
    EXPECT_CLOSE(dbias, dDb, kTolerance);  // no GEMM: exact precision either way
  }
}

TEST_P(CudaDeviceTest, LayerNormMatchesCpu) {
  for (const auto& [rows, cols] : {std::pair{24, 20}, {300, 97}, {5, 1024}, {1, 1}}) {
    SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
    const long n = static_cast<long>(rows) * cols;
    Vec x = randomVector(n, 1);
    for (float& v : x)
      v += 3.0f;  // a mean far from zero, as activations have
    const Vec gamma = randomVector(cols, 2), beta = randomVector(cols, 3);
    const Vec dy = randomVector(n, 4);
    Vec y(n), mean(rows), rstd(rows), dx = randomVector(n, 5);
    Vec dgamma = randomVector(cols, 6), dbeta = randomVector(cols, 7);
    DeviceVec gX(*gpu_, x), gGamma(*gpu_, gamma), gBeta(*gpu_, beta), gDy(*gpu_, dy), gY(*gpu_, y),
        gMean(*gpu_, mean), gRstd(*gpu_, rstd), gDx(*gpu_, dx), gDgamma(*gpu_, dgamma),
        gDbeta(*gpu_, dbeta);
    cpu_.layerNormForward(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(),
                          rows, cols);
    gpu_->layerNormForward(gX.get(), gGamma.get(), gBeta.get(), gY.get(), gMean.get(), gRstd.get(),
                           rows, cols);
    EXPECT_CLOSE(y, gY, kTolerance);
    EXPECT_CLOSE(mean, gMean, kTolerance);
    EXPECT_CLOSE(rstd, gRstd, kTolerance);
    for (bool acc : {true, false}) {
      cpu_.layerNormBackwardInput(dy.data(), x.data(), gamma.data(), mean.data(), rstd.data(),
                                  dx.data(), rows, cols, acc);
      gpu_->layerNormBackwardInput(gDy.get(), gX.get(), gGamma.get(), gMean.get(), gRstd.get(),
                                   gDx.get(), rows, cols, acc);
      EXPECT_CLOSE(dx, gDx, kTolerance) << " accumulate " << acc;
    }
    cpu_.layerNormBackwardWeight(dy.data(), x.data(), mean.data(), rstd.data(), dgamma.data(),
                                 dbeta.data(), rows, cols);
    gpu_->layerNormBackwardWeight(gDy.get(), gX.get(), gMean.get(), gRstd.get(), gDgamma.get(),
                                  gDbeta.get(), rows, cols);
    EXPECT_CLOSE(dgamma, gDgamma, kTolerance);
    EXPECT_CLOSE(dbeta, gDbeta, kTolerance);
  }
}

TEST_P(CudaDeviceTest, LossAndOptimizersMatchCpu) {
  for (long n : {1L, 1000L, 300001L}) {
    SCOPED_TRACE(n);
    const Vec y = randomVector(n, 1), t = randomVector(n, 2), g = randomVector(n, 3);
    DeviceVec gy(*gpu_, y), gt(*gpu_, t), gg(*gpu_, g), gdy(*gpu_, Vec(n));
    double* loss = static_cast<double*>(gpu_->allocate(sizeof(double)));
    double cpuLoss = 0, gpuLoss = 0;
    cpu_.mseForward(y.data(), t.data(), n, &cpuLoss);
    gpu_->mseForward(gy.get(), gt.get(), n, loss);
    gpu_->download(&gpuLoss, loss, sizeof(double));
    gpu_->release(loss, sizeof(double));
    EXPECT_NEAR(gpuLoss, cpuLoss, 1e-12 * cpuLoss);
    Vec dy(n);
    cpu_.mseBackward(y.data(), t.data(), dy.data(), n, 0.5f);
    gpu_->mseBackward(gy.get(), gt.get(), gdy.get(), n, 0.5f);
    EXPECT_CLOSE(dy, gdy, kTolerance);

    Vec p = y, vel = randomVector(n, 4), m = randomVector(n, 5, 0.1f), v = randomVector(n, 6);
    for (float& x : v)
      x = x * x;  // a second moment is never negative
    DeviceVec gp(*gpu_, p), gvel(*gpu_, vel), gm(*gpu_, m), gv(*gpu_, v);
    cpu_.sgdStep(p.data(), g.data(), nullptr, n, 0.1f, 0.0f);
    gpu_->sgdStep(gp.get(), gg.get(), nullptr, n, 0.1f, 0.0f);
    cpu_.sgdStep(p.data(), g.data(), vel.data(), n, 0.05f, 0.9f);
    gpu_->sgdStep(gp.get(), gg.get(), gvel.get(), n, 0.05f, 0.9f);
    EXPECT_CLOSE(vel, gvel, kTolerance);
    cpu_.adamStep(p.data(), g.data(), m.data(), v.data(), n, 1e-3f, 0.9f, 0.999f, 1e-8f, 10.0f,
                  1000.0f);
    gpu_->adamStep(gp.get(), gg.get(), gm.get(), gv.get(), n, 1e-3f, 0.9f, 0.999f, 1e-8f, 10.0f,
                   1000.0f);
    EXPECT_CLOSE(p, gp, kTolerance);
    EXPECT_CLOSE(m, gm, kTolerance);
    EXPECT_CLOSE(v, gv, kTolerance);
  }
}

TEST_P(CudaDeviceTest, ReductionsAreDeterministic) {
  const int rows = 1000, cols = 77;
  const long n = static_cast<long>(rows) * cols;
  const Vec x = randomVector(n, 1), dy = randomVector(n, 2), gamma(cols, 1.0f), beta(cols, 0.0f);
  DeviceVec gx(*gpu_, x), gdy(*gpu_, dy), gGamma(*gpu_, gamma), gBeta(*gpu_, beta),
      gy(*gpu_, Vec(n)), gMean(*gpu_, Vec(rows)), gRstd(*gpu_, Vec(rows));
  gpu_->layerNormForward(gx.get(), gGamma.get(), gBeta.get(), gy.get(), gMean.get(), gRstd.get(),
                         rows, cols);
  auto run = [&] {
    DeviceVec dgamma(*gpu_, Vec(cols)), dbeta(*gpu_, Vec(cols)), dw(*gpu_, Vec(cols * cols)),
        db(*gpu_, Vec(cols));
    double* loss = static_cast<double*>(gpu_->allocate(sizeof(double)));
    gpu_->layerNormBackwardWeight(gdy.get(), gx.get(), gMean.get(), gRstd.get(), dgamma.get(),
                                  dbeta.get(), rows, cols);
    gpu_->linearBackwardWeight(gdy.get(), gx.get(), dw.get(), db.get(), rows, cols, cols);
    gpu_->mseForward(gy.get(), gdy.get(), n, loss);
    double l = 0;
    gpu_->download(&l, loss, sizeof l);
    gpu_->release(loss, sizeof(double));
    Vec all = dgamma.host();
    for (const Vec& part : {dbeta.host(), dw.host(), db.host(), Vec{static_cast<float>(l)}})
      all.insert(all.end(), part.begin(), part.end());
    return std::make_pair(all, l);
  };
  const auto first = run();
  const auto second = run();
  ASSERT_EQ(first.first.size(), second.first.size());
  EXPECT_EQ(std::memcmp(first.first.data(), second.first.data(), first.first.size() * 4), 0);
  EXPECT_EQ(std::memcmp(&first.second, &second.second, sizeof(double)), 0);
}

TEST_P(CudaDeviceTest, AttentionMatchesCpu) {
  // heads ≥ batch batches the heads of a sequence; batch > heads batches the sequences.
  for (const AttentionShape s :
       {AttentionShape{4, 6, 20, 2}, {2, 33, 64, 4}, {3, 5, 12, 6}, {5, 7, 16, 2}, {1, 1, 8, 1}}) {
    SCOPED_TRACE(::testing::Message() << "batch " << s.batch << " seq " << s.seq << " hidden "
                                      << s.hidden << " heads " << s.heads);
    const long R = s.rows(), H = s.hidden;
    const Vec x = randomVector(R * H, 1), dOut = randomVector(R * H, 2);
    // Weights at the usual 1/√H scale keep the scores O(1), so the softmax is not saturated
    // and bf16's operand rounding (2⁻⁹) stays well inside its tolerance.
    const float sd = 0.5f / std::sqrt(static_cast<float>(H));
    const Vec wqkv = randomVector(3 * H * H, 3, sd), bqkv = randomVector(3 * H, 4, 0.1f);
    const Vec wo = randomVector(H * H, 5, sd), bo = randomVector(H, 6, 0.1f);
    Vec qkv(s.qkvElems()), probs(s.probsElems()), ctx(s.ctxElems()), out(R * H);
    Vec dQkv(s.qkvElems()), dX = randomVector(R * H, 7), scratch(s.backwardScratchElems());
    Vec gWqkv = randomVector(3 * H * H, 8), gBqkv = randomVector(3 * H, 9);
    Vec gWo = randomVector(H * H, 10), gBo = randomVector(H, 11);
    DeviceVec dx_(*gpu_, x), dOut_(*gpu_, dOut), wqkv_(*gpu_, wqkv), bqkv_(*gpu_, bqkv),
        wo_(*gpu_, wo), bo_(*gpu_, bo), qkv_(*gpu_, qkv), probs_(*gpu_, probs), ctx_(*gpu_, ctx),
        out_(*gpu_, out), dQkv_(*gpu_, dQkv), dX_(*gpu_, dX), scratch_(*gpu_, scratch),
        gWqkv_(*gpu_, gWqkv), gBqkv_(*gpu_, gBqkv), gWo_(*gpu_, gWo), gBo_(*gpu_, gBo);

    const AttentionWeights w{wqkv.data(), bqkv.data(), wo.data(), bo.data()};
    const AttentionWeights w_{wqkv_.get(), bqkv_.get(), wo_.get(), bo_.get()};
    const AttentionSaved saved{qkv.data(), probs.data(), ctx.data()};
    const AttentionSaved saved_{qkv_.get(), probs_.get(), ctx_.get()};
    cpu_.attentionForward(s, x.data(), w, saved, out.data());
    gpu_->attentionForward(s, dx_.get(), w_, saved_, out_.get());
    EXPECT_CLOSE(qkv, qkv_, gemmTolerance());
    EXPECT_CLOSE(probs, probs_, gemmTolerance());
    EXPECT_CLOSE(ctx, ctx_, gemmTolerance());
    EXPECT_CLOSE(out, out_, gemmTolerance());

    cpu_.attentionBackwardInput(s, w, saved, dOut.data(), dQkv.data(), dX.data(), scratch.data(),
                                true);
    gpu_->attentionBackwardInput(s, w_, saved_, dOut_.get(), dQkv_.get(), dX_.get(), scratch_.get(),
                                 true);
    EXPECT_CLOSE(dQkv, dQkv_, gemmTolerance());
    EXPECT_CLOSE(dX, dX_, gemmTolerance());

    cpu_.attentionBackwardWeight(s, x.data(), ctx.data(), dOut.data(), dQkv.data(),
                                 {gWqkv.data(), gBqkv.data(), gWo.data(), gBo.data()});
    gpu_->attentionBackwardWeight(s, dx_.get(), ctx_.get(), dOut_.get(), dQkv_.get(),
                                  {gWqkv_.get(), gBqkv_.get(), gWo_.get(), gBo_.get()});
    EXPECT_CLOSE(gWqkv, gWqkv_, gemmTolerance());
    EXPECT_CLOSE(gBqkv, gBqkv_, gemmTolerance());
    EXPECT_CLOSE(gWo, gWo_, gemmTolerance());
    EXPECT_CLOSE(gBo, gBo_, gemmTolerance());
  }
}

// A stream of a green context holding about half of the SMs: the device runs in that context
// (not the primary one), tells its size, and computes what the CPU does.
INSTANTIATE_TEST_SUITE_P(Dtypes, CudaDeviceTest, ::testing::Values(DType::Fp32, DType::Bf16),
                         [](const ::testing::TestParamInfo<DType>& param) {
                           return std::string(dtypeName(param.param));
                         });

}  // namespace
}  // namespace ps::kernels

#endif  // PIPESCOPE_TEST_HAVE_CUDA
