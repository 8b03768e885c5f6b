// Package model holds the architectures forma runs: one file per architecture, registered by the
// general.architecture it loads.
//
// An architecture reads its hyperparameters once (HParams, with llama.cpp's defaults), uploads its weights to an
// accel.Backend through a Loader (which checks every tensor's shape and names a missing or malformed tensor in its
// error), and builds the graph of a forward pass. The llama family shares one Transformer; an architecture states
// only what differs (RoPE ordering, biases, q/k norms, post-norms, fused projections, sliding windows).
//
// Embedding models are Embedders: their pass returns the states an embedding pools (every decoder of the llama
// family through its final norm, and the encoders bert and nomic-bert, which have no vocabulary head), with the
// pooling their file states. An encoder's token attends to its whole sequence: Inputs.See names the last cell
// each token sees, which the attention ops take where a decoder passes positions.
package model
