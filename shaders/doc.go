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
// For Metal, `go generate` also translates every SPIR-V module into Metal Shading Language (msl/NAME.metal) with
// the pinned upstream SPIRV-Cross (internal/msl; .ci/build-spirv-cross builds it): MSL 3.0, entry point
// forma_NAME, `#pragma clang fp contract(off)`. msl/manifest.txt records, per kernel, the hashes of its SPIR-V and
// MSL and the table the host binds it by: the MSL buffer index of each SPIR-V binding (SPIRV-Cross numbers
// buffers by first use and drops unused ones), the push constants' index and size, the function constants, and
// whether the workgroup size is the compile-time macro SPIRV_CROSS_CONSTANT_ID_0. MSL returns a kernel's source
// and table. Tests check, without tools, that every kernel was made from the committed SPIR-V and that its table
// is the one its signature gives, and regenerate the files when the pinned SPIRV-Cross is installed.
//
// Conventions shared by every shader: specialization constant 0 is the workgroup size; storage buffers are
// bindings 0… of descriptor set 0 in the order the shader documents; offsets and sizes in push constants
// count elements, not bytes; large dispatches are 2D and shaders flatten the workgroup index (common.glsl).
package shaders

//go:generate go run ./internal/shadergen -src . -out spv
//go:generate go run ./internal/mslgen -spv spv -out msl -root ..
