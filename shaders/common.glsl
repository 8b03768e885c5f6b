// common.glsl: definitions shared by forma's compute shaders.
#ifndef FORMA_COMMON_GLSL
#define FORMA_COMMON_GLSL

// Specialization constant 0 is the workgroup size (x) of every shader; the runtime sets it.
layout(local_size_x_id = 0) in;

// flat_workgroup numbers the workgroups of a 2D dispatch, x fastest, so one dispatch can cover more than
// maxComputeWorkGroupCount[0] (at least 65535) workgroups.
uint flat_workgroup() {
    return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
}

#endif
