#pragma once
// Micro-batches that are not all --microbatch-size sequences of --seq tokens: DynaPipe's groups
// of sequences of different lengths (padded rows, or packed rows of several sequences) and
// TeraPipe's token slices of long sequences. Each plan micro-batch gets its own shape and the
// sequences' tokens it holds; the model runs it at that shape (StageOptions::tokens).
//
// Loss: a micro-batch's loss is its mean over its real tokens (padding excluded); the step's is
// the mean over every real token of the step, so each micro-batch weighs by its share of them.
// Sliced or not, grouped one way or another, a step trains on the same loss.

#include <vector>

#include "runtime/exec/KernelTypes.h"
#include "runtime/model/MicrobatchKey.h"
#include "runtime/model/ModelConfig.h"
#include "runtime/model/SyntheticData.h"

namespace ps::runtime {

// Tokens [first, first + count) of one sequence, side by side in a row.
struct TokenPiece {
  int sequence = 0;
  int first = 0;
  int count = 0;
};

struct MicrobatchTokens {
  std::vector<std::vector<TokenPiece>> rows;  // per row, its pieces from column 0; then padding
  int cols = 0;                               // tokens per row, padding included
  // Token slices: the tokens of each row's sequence in the earlier slices (attention sees them
  // through a cache that the micro-batch `firstSlice` opens and closes), else 0 and -1.
  int prefix = 0;
  int firstSlice = -1;
  double lossWeight = 1.0;  // this micro-batch's real tokens over the step's

  int numRows() const { return static_cast<int>(rows.size()); }
  long realTokens() const;
  // pieceStart[r·cols + c]: the column where token (r, c)'s piece starts (padding's own piece).
  std::vector<int> pieceStarts() const;
};

struct TokenLayouts {
  // Where a sequence's tokens come from. Slices cut the model's own micro-batches (sequence i is
  // row i % rows of uniform micro-batch i / rows: exactly the unsliced run's data); DynaPipe's
  // sequences are their own (lengths below).
  bool slicesOfMicrobatches = false;
  int rowsPerMicrobatch = 0;                   // slices: --microbatch-size
  std::vector<int> sequenceLengths;            // a step's sequences (DynaPipe), in tokens
  std::vector<MicrobatchTokens> microbatches;  // per plan micro-batch
};

// What one layer's passes need of a micro-batch of a TokenLayouts (ActivationStash::tokens()):
// its shape, its pieces, and the layer's slice cache (null without token slices).
struct TokenContext {
  int rows = 0;
  int cols = 0;
  int prefix = 0;
  const int* pieceStart = nullptr;
  kernels::AttentionPrefix* cache = nullptr;
};

// A micro-batch's input (target = false) or target (true), [rows × cols × hidden], padding 0:
// the same numbers wherever its tokens sit (a slice, a padded row, a packed row).
void fillTokens(const ModelConfig& config, const TokenLayouts& layouts, MicrobatchKey key,
                bool target, float* out);

}  // namespace ps::runtime
