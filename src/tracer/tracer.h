// SPDX-License-Identifier: BSD-3-Clause
// Tracing: while a thread traces, the Tracer dispatch key is in its included
// set and the Tracer fallback records each op it reaches, then runs the op
// below with Tracer excluded, so an op is one node however it is carried
// out (a composite's inner ops, autograd's and autocast's calls are not
// recorded). Tensors the function reads that are neither inputs nor made by
// a recorded op are captured: parameters if they require grad, else
// constants. A value read back with item() while tracing, or an op result
// that is not a tensor, is noted in the graph's warnings: the trace holds
// the branch taken for these inputs only.
#pragma once
#include <vector>

#include "dispatch/dispatcher.h"
#include "tracer/graph.h"

namespace tc::tracer {

// Starts tracing on this thread (InvalidArgument if it already traces).
void begin();
// Makes t the next graph input (InvalidArgument if not tracing, if t is
// undefined, or if t is already an input or was made by a traced op).
void add_input(const Tensor& t);
// Ends tracing and returns the graph whose outputs are `outputs` (a tensor
// no recorded op made is captured), with dead code eliminated.
Graph end(const std::vector<Tensor>& outputs);
// Ends tracing without a graph (nothing if not tracing).
void abort();
bool is_tracing();

// Registers the recording fallback for the Tracer key (at start-up).
void register_tracer_fallback(Dispatcher& d);

}  // namespace tc::tracer
