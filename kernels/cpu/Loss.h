#pragma once
// Loss functions with their gradients. Loss values are accumulated in double (they are reported
// and compared across runs); `scale` multiplies the gradient, e.g. 1/M to average a step's loss
// over its M micro-batches.

namespace ps::kernels {

// Mean squared error over n values: (1/n) Σ (y − t)².
double mseForward(const float* y, const float* target, long n);

// dy = scale · 2(y − t)/n.
void mseBackward(const float* y, const float* target, float* dy, long n, float scale = 1.0f);

// Softmax cross-entropy over logits [rows×classes] with one label per row; returns the mean over
// rows of −log softmax(logits)[label] and saves the probabilities [rows×classes].
double crossEntropyForward(const float* logits, const int* labels, float* probs, int rows,
                           int classes);

// dlogits = scale · (probs − onehot(label)) / rows.
void crossEntropyBackward(const float* probs, const int* labels, float* dlogits, int rows,
                          int classes, float scale = 1.0f);

}  // namespace ps::kernels
