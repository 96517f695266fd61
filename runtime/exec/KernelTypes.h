#pragma once
// The kernels types that runtime's headers name, declared without including kernels/: ui and app
// include runtime headers but never a kernels header (DESIGN §1; tests/layers/LayerIncludes.cmake
// checks every header they reach). The definitions are in kernels/ComputeDevice.h and
// kernels/cpu/MaskedAttention.h; a runtime source that uses their members includes those.

namespace ps::kernels {

// GEMM input precision (Fp32, Bf16). Value-initialised, DType{}, it is Fp32: the first enumerator.
// Front ends name it through runtime/run/BackendDescription.h (parseDtype, nameOfDtype).
enum class DType;
class ComputeDevice;
struct AttentionPrefix;

}  // namespace ps::kernels
