#pragma once
// A realistic torch.profiler (Kineto) trace of one pipeline rank for the import benchmarks: mostly
// cpu_op, cuda_runtime and kernel events in Kineto's own layout (one key group per line, 2-space
// indents), with pipeline annotations (user_annotation + gpu_user_annotation "PP:<rank>F<mb>"),
// NCCL send kernels with their args, ac2g flows and [memory] events; optionally the optimizer
// of each step, whose kernels lie outside every pipeline op.

#include <cstddef>
#include <cstdio>
#include <string>

namespace ps::bench {

struct TraceShape {
  std::size_t bytes = 300u << 20;  // written until the file has about this many bytes
  int rank = 3;
  int worldSize = 8;
  bool optimizerStep = false;
};

inline const char* const kKernels[] = {
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "at::detail::Array<char*, 3>)",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
    "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
    "flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, "
    "false, true, false, false, false, true, false, false>(Flash_fwd_params)",
};
inline const char* const kOps[] = {"aten::mm",   "aten::add",   "aten::_softmax", "aten::empty",
                                   "aten::view", "aten::copy_", "aten::linear",   "aten::t"};

// Writes the trace in Kineto's own layout (one key group per line, 2-space indents).
class TraceGenerator {
 public:
  TraceGenerator(std::FILE* out, const TraceShape& shape) : out_(out), shape_(shape) {}

  void run() {
    std::fputs(
        "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, "
        "\"name\": \"NVIDIA H200\", \"totalGlobalMem\": 150754820096,\n      "
        "\"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132\n    }\n  ],\n  ",
        out_);
    std::fprintf(out_,
                 "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": "
                 "%d},\n  \"traceEvents\": [\n",
                 shape_.rank, shape_.worldSize);
    long step = 0;
    while (written() < shape_.bytes) {
      const double stepStart = t_;
      for (int mb = 0; mb < 8 && written() < shape_.bytes; ++mb)
        microBatch(mb);
      if (shape_.optimizerStep) optimizerStep();
      event("user_annotation", "ProfilerStep#" + std::to_string(step++), 4242, 4242, stepStart,
            t_ - stepStart, "\"External id\": 1, \"Record function id\": 0, \"Ev Idx\": 0");
    }
    std::fputs(
        "  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": "
        "\"\", \"tid\": \"\",\n    \"ts\": 1.000\n  }\n  ],\n  \"traceName\": "
        "\"bench.pt.trace.json\",\n  \"displayTimeUnit\": \"ms\",\n  "
        "\"baseTimeNanoseconds\": 1731400000000000000\n}\n",
        out_);
  }

 private:
  std::size_t written() const { return static_cast<std::size_t>(std::ftell(out_)); }

  void event(const char* cat, const std::string& name, long pid, long tid, double ts, double dur,
             const std::string& args) {
    std::fprintf(out_,
                 "  {\n    \"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %ld, "
                 "\"tid\": %ld,\n    \"ts\": %.3f, \"dur\": %.3f,\n    \"args\": {\n      %s\n    "
                 "}\n  },\n",
                 cat, name.c_str(), pid, tid, ts, dur, args.c_str());
  }

  void flow(const char* ph, long id, long pid, long tid, double ts) {
    std::fprintf(out_,
                 "  {\n    \"ph\": \"%s\", \"id\": %ld, \"pid\": %ld, \"tid\": %ld, \"ts\": %.3f,\n"
                 "    \"cat\": \"ac2g\", \"name\": \"ac2g\"%s\n  },\n",
                 ph, id, pid, tid, ts, ph[0] == 'f' ? ", \"bp\": \"e\"" : "");
  }

  void microBatch(int mb) {
    const std::string label = "PP:" + std::to_string(shape_.rank) + "F" + std::to_string(mb);
    const double start = t_;
    const double gpuStart = gpuT_;
    for (int layer = 0; layer < 24; ++layer)
      layerOps(layer);
    event("user_annotation", label, 4242, 4242, start, t_ - start,
          "\"External id\": " + std::to_string(++external_) +
              ", \"Record function id\": 0, \"Ev Idx\": 7");
    event("gpu_user_annotation", label, 0, 7, gpuStart, gpuT_ - gpuStart,
          "\"External id\": " + std::to_string(external_));
    // Send the activations to the next stage.
    kernel("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", 24, 150.0,
           ",\n      \"Collective name\": \"send\", \"In msg nelems\": 4194304, \"Out msg "
           "nelems\": 4194304, \"Group size\": 2, \"dtype\": \"BFloat16\", \"In split size\": "
           "\"[]\", \"Out split size\": \"[]\", \"Process Group Name\": \"12\", \"Process Group "
           "Description\": \"pp\", \"Process Group Ranks\": \"[3, 4]\", \"Dst Rank\": 4");
    std::fprintf(out_,
                 "  {\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": "
                 "\"[memory]\",\n    \"pid\": 4242, \"tid\": 4242,\n    \"ts\": %.3f,\n    "
                 "\"args\": {\n      \"Total Reserved\": 42949672960, \"Total Allocated\": %ld, "
                 "\"Bytes\": 33554432, \"Addr\": 139868209594368, \"Device Type\": 1, \"Device "
                 "Id\": 0\n    }\n  },\n",
                 t_, 30000000000L + mb * 33554432L);
  }

  // The optimizer after the micro-batches: an unlabelled range (an OTHER op) whose kernels run
  // outside every pipeline op, so they are imported as OTHER ops of their own, as in real steps.
  void optimizerStep() {
    const double start = t_;
    const double gpuStart = gpuT_;
    for (int k = 0; k < 24; ++k) {
      ++external_;
      event("cuda_runtime", "cudaLaunchKernel", 4242, 4242, t_ + 1.0, 5.125,
            "\"External id\": " + std::to_string(external_) +
                ", \"cbid\": 211, \"correlation\": " + std::to_string(++correlation_));
      kernel(
          "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
          "(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::"
          "FusedAdamMathFunctor<float, 4>, float*, double, double>(...)",
          7, 22.5, "");
      t_ += 7.0;
    }
    event("user_annotation", "Optimizer.step#AdamW.step", 4242, 4242, start, t_ - start,
          "\"External id\": " + std::to_string(++external_) + ", \"Record function id\": 0");
    event("gpu_user_annotation", "Optimizer.step#AdamW.step", 0, 7, gpuStart, gpuT_ - gpuStart,
          "\"External id\": " + std::to_string(external_));
  }

  void layerOps(int layer) {
    for (int k = 0; k < 3; ++k) {
      const char* op = kOps[(layer + k) % 8];
      const double opStart = t_;
      ++external_;
      event("cpu_op", op, 4242, 4242, opStart, 14.25,
            "\"External id\": " + std::to_string(external_) +
                ", \"Record function id\": 0, \"Concrete Inputs\": [\"\", \"\"], \"Input "
                "type\": [\"c10::BFloat16\", \"c10::BFloat16\"], \"Input Strides\": [[4096, 1], "
                "[4096, 1]], \"Input Dims\": [[8192, 4096], [4096, 4096]], \"Ev Idx\": " +
                std::to_string(external_));
      ++external_;
      event("cpu_op", "aten::empty", 4242, 4242, opStart + 1.0, 2.5,
            "\"External id\": " + std::to_string(external_) +
                ", \"Record function id\": 0, \"Ev Idx\": " + std::to_string(external_));
      event("cuda_runtime", "cudaLaunchKernel", 4242, 4242, opStart + 6.0, 5.125,
            "\"External id\": " + std::to_string(external_) +
                ", \"cbid\": 211, \"correlation\": " + std::to_string(++correlation_));
      flow("s", correlation_, 4242, 4242, opStart + 6.0);
      kernel(kKernels[(layer * 3 + k) % 4], 7, 40.0 + k * 13.5, "");
      flow("f", correlation_, 0, 7, gpuT_ - 1.0);
      t_ += 16.5;
    }
  }

  void kernel(const char* name, long stream, double dur, const std::string& extra) {
    event("kernel", name, 0, stream, gpuT_, dur,
          "\"External id\": " + std::to_string(external_) +
              ",\n      \"queued\": 0, \"device\": 0, \"context\": 1,\n      \"stream\": " +
              std::to_string(stream) + ", \"correlation\": " + std::to_string(correlation_) +
              ",\n      \"registers per thread\": 168,\n      \"shared memory\": 232448,\n      "
              "\"blocks per SM\": 1,\n      \"warps per SM\": 12,\n      \"grid\": [132, 1, "
              "1],\n      \"block\": [384, 1, 1],\n      \"est. achieved occupancy %\": 19" +
              extra);
    gpuT_ += dur + 1.25;
  }

  std::FILE* out_;
  TraceShape shape_;
  double t_ = 4458676388068.751;
  double gpuT_ = 4458676388168.123;
  long external_ = 0;
  long correlation_ = 0;
};

}  // namespace ps::bench
