#pragma once
// Causal self-attention over micro-batches whose rows are not one whole sequence each
// (conventions as Attention.h): DynaPipe's padded groups and packed rows, TeraPipe's token slices.
// A row holds pieces, each a run of one sequence's tokens; padding after the last piece is a
// piece of its own. A token sees the earlier tokens of its own piece and, when its piece starts
// the row and the row continues a sequence from earlier slices, that sequence's cached keys and
// values (its causal prefix). So a packed row never mixes sequences, padding never reaches a real
// token, and a slice attends exactly as it would inside the whole sequence.
//
// The attention core only (q/k/v in, context out); the projections are Linear.h's. Host memory.

namespace ps::kernels {

struct MaskedAttentionShape {
  int rows = 1;
  int cols = 1;  // tokens per row, padding included
  int hidden = 1;
  int heads = 1;
  int prefix = 0;  // cached tokens before column 0 of every row (token slices), else 0

  int headDim() const { return hidden / heads; }
  long tokens() const { return static_cast<long>(rows) * cols; }
  long keys() const { return static_cast<long>(prefix) + cols; }
  // Probabilities [rows][heads][cols][prefix + cols] (masked entries 0).
  long probsElems() const { return tokens() * heads * keys(); }
};

// A row's sequence's keys and values from its earlier slices, and the gradients its later
// slices' backwards left for them: row r's token t at (r·capacity + t)·hidden, heads side by side.
struct AttentionPrefix {
  float* k = nullptr;
  float* v = nullptr;
  float* dk = nullptr;
  float* dv = nullptr;
  int capacity = 0;  // tokens per row's sequence
};

// F: qkv [tokens × 3H] (q | k | v) → probs and ctx [tokens × H]. pieceStart[r·cols + c] is the
// column where token (r, c)'s piece starts. With a prefix, this slice's keys and values are also
// written to it at [prefix, prefix + cols) for the slices after it.
void maskedAttentionForward(const MaskedAttentionShape& s, const int* pieceStart, const float* qkv,
                            const AttentionPrefix* prefix, float* probs, float* ctx);

// I: dCtx → dQkv [tokens × 3H] (written). The prefix's keys and values get their gradient added
// to prefix->dk/dv; this slice's own keys and values take what later slices left there.
void maskedAttentionBackward(const MaskedAttentionShape& s, const int* pieceStart, const float* qkv,
                             const float* probs, const float* dCtx, const AttentionPrefix* prefix,
                             float* dQkv);

}  // namespace ps::kernels
