// Package hub pulls GGUF models from the Hugging Face Hub and Ollama's registry into a local store, and
// resolves model names to files.
//
// # References
//
// ParseRef reads what a user types: hf.co/ORG/REPO[:QUANT] (or ORG/REPO[:QUANT]) for the Hub, as llama.cpp's
// -hf and Ollama's hf.co/ take it; ollama.com/[NAMESPACE/]NAME[:TAG] (or NAME[:TAG]) for Ollama's registry.
// On the Hub the quant picks the file (DefaultQuant when none is given, else the nearest in bits per weight);
// all parts of a split model (NAME-0000k-of-0000N.gguf) come together, and the vision projector on request.
//
// # The Hub's and the registry's APIs
//
// A Hub pull walks what llama.cpp's -hf walks: GET /api/models/ORG/REPO/refs for the main branch's commit,
// GET /api/models/ORG/REPO/tree/COMMIT?recursive=true for the files with their Git LFS SHA-256 and size, HEAD
// /ORG/REPO/resolve/COMMIT/FILE (not following its redirect) whose X-Linked-Etag and X-Linked-Size must agree,
// then GET of the same URL, which redirects to a CDN host. $HF_TOKEN goes to the Hub as a bearer token (never
// to the CDN); a 401 or 403 says to accept the licence on the model page. An Ollama pull reads
// GET /v2/NAMESPACE/NAME/manifests/TAG and fetches its layers from /v2/NAMESPACE/NAME/blobs/DIGEST: the
// model layer (application/vnd.ollama.image.model, a GGUF) and the template, params, system, licence and
// projector layers beside it. $HF_ENDPOINT and $FORMA_REGISTRY point at mirrors (and at fakes, in tests).
//
// # Downloads
//
// Every file is fetched into blobs/sha256-HEX.part under an exclusive lock on blobs/sha256-HEX.lock (flock,
// LockFileEx), so two pulls of one model, in one process or two, download it once. A record beside the .part
// (.part.json) says which byte ranges are on disk; a pull cut off resumes with HTTP Range requests where it
// stopped, without fetching those bytes again. Files of at least 2×SplitSize bytes are fetched over up to
// Connections connections at once. A request that fails with 429, 408 or 5xx, a reset or a cut connection is
// retried after a doubling wait (Retry-After when the server sends one), a connection quiet for StallTimeout
// is dropped and resumed; Retries failures in a row without a byte of progress end the pull. The free space
// is checked before the first byte; the whole file's SHA-256 is checked against the registry's digest before
// it is renamed into the store, and a mismatch leaves nothing but the .part (without its record: the next
// pull fetches the file anew).
//
// # The store
//
// Store describes the folder ($FORMA_MODELS, default ~/.forma/models): blobs by digest, so a file pulled
// under two names is kept once; a JSON manifest per name; Hub pulls also laid out as huggingface_hub lays its
// cache (models--ORG--REPO/{blobs,snapshots,refs}), so that other tools pointed at the folder find them.
// Models already in another tool's store are found and used in place: huggingface_hub's cache
// ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub), llama.cpp's ($LLAMA_CACHE, same layout)
// and Ollama's ($OLLAMA_MODELS, else ~/.ollama/models: manifests/registry.ollama.ai/... and blobs/).
// Client.Resolve gives the order in which a name is looked up. Nothing here loads a model: Resolve returns a
// path for runtime.Load.
package hub
