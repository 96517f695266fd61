#include "runtime/exec/Calibrate.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kernels/cpu/Gemm.h"
#include "runtime/model/StageModel.h"
#include "trace/store/TraceWriter.h"

namespace ps::runtime {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  return (*mid + *std::max_element(v.begin(), mid)) / 2;
}

template <class Fn>
Result<double> timed(Fn&& fn) {
  const auto t0 = Clock::now();
  PS_TRY(fn());
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

// One layer as a one-layer stage with its own memory counter, and the buffers a rank would pass.
struct LayerProbe {
  std::unique_ptr<StageModel> stage;
  Tensor in, out, dOut, dIn;   // on the stage's device, not counted
  std::int64_t baseBytes = 0;  // weights, gradients and optimizer state

  Status forward(MicrobatchKey key) {
    return stage->forward(key, stage->isFirst() ? nullptr : in.data(),
                          stage->isLast() ? nullptr : out.data());
  }
  Status backwardInput(MicrobatchKey key) {
    return stage->backwardInput(key, stage->isLast() ? nullptr : dOut.data(),
                                stage->isFirst() ? nullptr : dIn.data());
  }
};

Result<LayerProbe> probeLayer(const ModelConfig& model, const OptimizerConfig& optimizer, int layer,
                              kernels::ComputeDevice* device) {
  StageOptions options;
  options.firstLayer = layer;
  options.lastLayer = layer;
  options.microbatchesPerStep = 1;
  options.optimizer = optimizer;
  options.memory = std::make_shared<MemoryCounter>(device);
  auto stage = StageModel::create(model, options);
  if (!stage) return std::move(stage).takeError();
  LayerProbe p;
  p.stage = std::move(*stage);
  const auto elems = static_cast<std::size_t>(model.activationElems());
  // Small deterministic values: the passes' cost does not depend on them.
  std::vector<float> in(elems), dOut(elems);
  for (std::size_t i = 0; i < elems; ++i) {
    in[i] = static_cast<float>(static_cast<int>(i % 17) - 8) * 0.0625f;
    dOut[i] = static_cast<float>(static_cast<int>(i % 13) - 6) * 0.01f;
  }
  kernels::ComputeDevice& dev = p.stage->device();
  for (Tensor* t : {&p.in, &p.out, &p.dOut, &p.dIn})
    *t = Tensor::uncounted(dev, elems);
  dev.upload(p.in.data(), in.data(), elems * sizeof(float));
  dev.upload(p.dOut.data(), dOut.data(), elems * sizeof(float));
  p.baseBytes = p.stage->memory()->bytesInUse();
  return p;
}

std::string layerName(const ModelConfig& model, int layer) {
  return std::string(blockTypeName(model.block)) + "." + std::to_string(layer);
}

// Fills a layer's sizes from one micro-batch's F (what it holds afterwards), then finishes it.
Status measureSizes(LayerProbe& p, MicrobatchKey key, LayerCost& cost) {
  cost.paramBytes = p.stage->paramBytes();
  PS_TRY(p.forward(key));
  cost.actBytes = p.stage->memory()->bytesInUse() - p.baseBytes;
  cost.outputBytes = p.stage->boundaryBytes();  // what the cpu backend really sends
  PS_TRY(p.backwardInput(key));
  return p.stage->backwardWeight(key);
}

double stateRatio(const LayerProbe& p) {
  const std::int64_t params = p.stage->paramBytes();
  return params > 0 ? static_cast<double>(p.baseBytes) / static_cast<double>(params) : 0.0;
}

}  // namespace

Result<CostModel> cpuModelSizes(const ModelConfig& model, const OptimizerConfig& optimizer) {
  PS_TRY(validate(model));
  PS_TRY(validate(optimizer));
  CostModel cost;
  for (int l = 0; l < model.layers; ++l) {
    auto probe = probeLayer(model, optimizer, l, nullptr);
    if (!probe) return std::move(probe).takeError();
    LayerCost layer;
    layer.name = layerName(model, l);
    PS_TRY(measureSizes(*probe, {0, 0}, layer));
    cost.stateBytesPerParamByte = stateRatio(*probe);
    cost.layers.push_back(std::move(layer));
  }
  return cost;
}

namespace {

// Every timed sample of one calibrating thread, per layer.
struct Samples {
  std::vector<std::vector<double>> f, i, w;  // [layer][sample] ns
  std::vector<double> optNsPerByte;
  Status status;
};

// Times one layer's F, I, W and optimizer step, appending to `out`.
Status timeLayer(LayerProbe& p, int layer, const CalibrationOptions& options, Samples& out) {
  const auto time = [&](const std::function<Status()>& pass) -> Result<double> {
    if (options.timePass) return options.timePass(pass);
    return timed(pass);
  };
  for (int rep = 0; rep < options.warmup + options.repeats; ++rep) {
    const MicrobatchKey key{0, rep + 1};
    p.stage->prepareBatches(key);  // a data loader's work, done ahead in a run
    auto tf = time([&] { return p.forward(key); });
    if (!tf) return std::move(tf).takeError();
    auto ti = time([&] { return p.backwardInput(key); });
    if (!ti) return std::move(ti).takeError();
    auto tw = time([&] { return p.stage->backwardWeight(key); });
    if (!tw) return std::move(tw).takeError();
    if (rep < options.warmup) continue;
    out.f[layer].push_back(*tf);
    out.i[layer].push_back(*ti);
    out.w[layer].push_back(*tw);
  }
  const auto paramBytes = static_cast<double>(std::max<std::int64_t>(1, p.stage->paramBytes()));
  for (int rep = 0; rep < options.warmup + options.repeats; ++rep) {
    auto t = time([&]() -> Status {
      p.stage->optimizerStep();
      return {};
    });
    if (!t) return std::move(t).takeError();
    if (rep >= options.warmup) out.optNsPerByte.push_back(*t / paramBytes);
  }
  return {};
}

}  // namespace

Result<CostModel> calibrateCpuCosts(const ModelConfig& model, const OptimizerConfig& optimizer,
                                    const CalibrationOptions& options) {
  PS_TRY(validate(model));
  PS_TRY(validate(optimizer));
  if (options.device && options.threads != 1)
    return Error{"calibration on a device times one layer at a time (threads must be 1)"};
  if (options.repeats < 1 || options.warmup < 0 || options.threads < 1)
    return Error{"calibration needs at least one repeat and one thread (got " +
                 std::to_string(options.repeats) + " and " + std::to_string(options.threads) +
                 ") and no negative warm-up"};
  auto sizes = cpuModelSizes(model, optimizer);
  if (!sizes) return sizes;
  kernels::setBlasThreads(1);  // as each rank runs
  const auto layers = static_cast<std::size_t>(model.layers);
  std::vector<Samples> samples(static_cast<std::size_t>(options.threads));
  // Threads time the same layer at the same time (a barrier per layer), each on its own copy.
  std::barrier sync(options.threads);
  const auto body = [&](Samples& out) {
    out.f.resize(layers);
    out.i.resize(layers);
    out.w.resize(layers);
    for (int l = 0; l < model.layers; ++l) {
      sync.arrive_and_wait();
      if (!out.status) continue;  // keep meeting the others at the barrier
      auto probe = probeLayer(model, optimizer, l, options.device);
      out.status = probe ? timeLayer(*probe, l, options, out) : Status{Error{probe.error()}};
    }
  };
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < samples.size(); ++t)
    helpers.emplace_back(body, std::ref(samples[t]));
  body(samples[0]);
  for (auto& h : helpers)
    h.join();

  CostModel cost = std::move(*sizes);
  std::vector<double> opt;
  for (std::size_t l = 0; l < layers; ++l) {
    std::vector<double> f, i, w;
    for (const Samples& s : samples) {
      if (!s.status) return Error{"calibration: " + s.status.error()};
      f.insert(f.end(), s.f[l].begin(), s.f[l].end());
      i.insert(i.end(), s.i[l].begin(), s.i[l].end());
      w.insert(w.end(), s.w[l].begin(), s.w[l].end());
    }
    cost.layers[l].fwdNs = median(std::move(f));
    cost.layers[l].inputGradNs = median(std::move(i));
    cost.layers[l].weightGradNs = median(std::move(w));
  }
  for (const Samples& s : samples)
    opt.insert(opt.end(), s.optNsPerByte.begin(), s.optNsPerByte.end());
  cost.optimizerNsPerParamByte = median(std::move(opt));
  return cost;
}

std::string calibrationSource(const ModelConfig& model, const OptimizerConfig& optimizer,
                              const std::string& where) {
  return "calibrated on " + where + ": " + std::string(blockTypeName(model.block)) +
         " L=" + std::to_string(model.layers) + " H=" + std::to_string(model.hidden) +
         " S=" + std::to_string(model.seq) + " B=" + std::to_string(model.microbatchSize) + ", " +
         std::string(optimizerName(optimizer.kind)) + ", " + trace::utcNowIso8601();
}

}  // namespace ps::runtime
