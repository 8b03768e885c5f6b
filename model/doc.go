// Package model holds the architectures forma runs: one file per architecture, registered by the
// general.architecture it loads.
//
// An architecture reads its hyperparameters once (HParams, with llama.cpp's defaults), uploads its weights to an
// accel.Backend through a Loader (which checks every tensor's shape and names a missing or malformed tensor in its
// error), and builds the graph of a forward pass. The llama family shares one Transformer; an architecture states
// only what differs (RoPE ordering, biases, q/k norms, post-norms, fused projections, sliding windows).
package model
