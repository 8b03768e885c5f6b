// id.glsl: the bases of a mat-vec's weight, activations and output, and, in the mat_mul_id variants (ID=1), the
// expert of the workgroup's (row, slot) pair. Workgroup z is the pair p = row·k + slot; its expert is ids[p], or
// the slot itself with identity set (a matrix per slot). The dispatch binds one part of a weight split over
// buffers, the experts [e0, e1) of e_units units each (the unit of w_off); a workgroup whose expert lies
// elsewhere does nothing. Its activation row is p / k with bcast set (every slot of a row reads the row), else
// p; its results go to output row p.
// The including shader declares pc with the fields k, bcast, identity, ids_off, e0, e1 and e_units (when
// ID) and defines ID_X_OFF, its activation offset field; with ID, binding 3 holds ids.
#ifndef FORMA_ID_GLSL
#define FORMA_ID_GLSL

#if ID
layout(std430, binding = 3) readonly buffer IDS { int ids[]; };
#endif

uint w_base, x_base, y_base;

// id_setup sets the bases and reports whether the workgroup has work: x_row is the stride of activation rows
// in the unit of x_off (elements, or activation words).
bool id_setup(uint x_row) {
#if ID
    uint p = gl_WorkGroupID.z;
    uint e = pc.identity != 0u ? p % pc.k : uint(max(ids[pc.ids_off + p], 0));
    if (e < pc.e0 || e >= pc.e1) {
        return false;
    }
    w_base = pc.w_off + (e - pc.e0) * pc.e_units;
    x_base = ID_X_OFF + (pc.bcast != 0u ? p / pc.k : p) * x_row;
    y_base = pc.y_off + p * pc.y_stride;
#else
    w_base = pc.w_off;
    x_base = ID_X_OFF;
    y_base = pc.y_off;
#endif
    return true;
}

#endif
