// Package gputest is the test code the GPU backends (accel/vulkan, accel/metal) and the shaders' device layouts
// (shaders/layout) share: random source blocks of every weight type, and the checks of the shaders' numerics
// (numeric.glsl) bit for bit against Go's, which each backend runs on its own device through a small function
// (Kernel). It is imported by tests only.
package gputest
