#pragma once
// NestPipe's key-centric sample clustering: a step's samples regrouped into its micro-batches so
// that the samples of a micro-batch share embedding keys, and each micro-batch's gather moves
// fewer distinct rows. The step trains on the same samples either way; only which samples go
// together changes.

#include <vector>

namespace ps::runtime {

// The samples' order after clustering: group k is order[k·size, (k+1)·size). Greedy, in sample
// order: each group starts from the first sample left, then takes, one at a time, the sample left
// that shares the most distinct keys with the group so far (the first such on ties). `keys[s]`:
// sample s's keys (any order, repeats allowed); keys.size() a multiple of `size`.
std::vector<int> clusterSamplesByKey(const std::vector<std::vector<int>>& keys, int size);

// How many distinct keys each group of `size` consecutive samples of `order` holds.
std::vector<int> distinctKeysPerGroup(const std::vector<std::vector<int>>& keys,
                                      const std::vector<int>& order, int size);

}  // namespace ps::runtime
