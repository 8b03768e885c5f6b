// Package shaders holds forma's GLSL compute shaders and their SPIR-V, compiled ahead of time and embedded.
//
// Sources are shaders/*.comp with shared includes in shaders/*.glsl. A source with lines
// "//#variant NAME DEF=VALUE…" compiles once per line, with the definitions, into shader NAME (variants per
// weight type or op); otherwise it compiles into the shader of its own name. `go generate ./shaders/...`
// compiles them with glslangValidator (-V --target-env vulkan1.2) into spv/*.spv and records in spv/manifest.txt which
// sources and compiler each came from; both are committed, so building forma needs no shader compiler. Tests
// check that the manifest matches the sources (always), that recompiling gives the same bytes (when the same
// glslangValidator is installed) and that each module passes spirv-val (when installed).
//
// Conventions shared by every shader: specialization constant 0 is the workgroup size; storage buffers are
// bindings 0… of descriptor set 0 in the order the shader documents; offsets and sizes in push constants
// count elements, not bytes; large dispatches are 2D and shaders flatten the workgroup index (common.glsl).
package shaders

//go:generate go run ./internal/shadergen -src . -out spv
