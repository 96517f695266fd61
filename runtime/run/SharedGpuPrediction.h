#pragma once
// What a --compare-sim prediction of a cuda run assumes when its ranks share GPUs (issue 32 §8).
// The simulator runs P independent ranks; calibration times the layers on one GPU. When P ranks
// share G < P GPUs, a calibration on the whole idle GPU predicts ranks that each have a GPU,
// while the measured ranks contend for one: the prediction says so. With --sm-split each rank
// runs on its own share of the SMs and calibration times the layers on one such share.
// Qt- and CUDA-free: the choice is tested without a GPU.

#include <string>

namespace ps::runtime {

// The SM shares one GPU is cut into for calibration: the most ranks any GPU holds (the
// contiguous placement's ceil(P / G)) with --sm-split when ranks share a GPU; 1 otherwise.
int calibrationShareOf(int ranks, int devices, bool smSplit);

// The note printed with the prediction, empty when every rank has its own GPU (or no device is
// known). Without --sm-split: the prediction assumes one GPU per rank; with it: calibration used
// one SM share per rank.
std::string sharedGpuPredictionNote(int ranks, int devices, bool smSplit);

}  // namespace ps::runtime
