// matvec_reduce.glsl: the end of matvec_f. A workgroup computes wg/tpr weight rows with tpr invocations each
// (lane = lid mod tpr); every invocation holds double-float partial sums acc[c] for the activation rows. They
// are added in a fixed tree through shared memory and rounded once: the CPU backend sums these products in
// double, and a double-float sum rounds to the same float32 but for rare ties. The including shader declares
// MAXCOLS, pc.ncols, pc.rows, pc.tpr, pc.y_stride and y[], and sets y_base (id.glsl).
#ifndef FORMA_MATVEC_REDUCE_GLSL
#define FORMA_MATVEC_REDUCE_GLSL

shared vec2 partial[MAXCOLS * gl_WorkGroupSize.x];

void reduce_rows(vec2 acc[MAXCOLS], uint lid, uint lane, uint slot, uint row) {
    uint wg = gl_WorkGroupSize.x;
    for (uint c = 0u; c < pc.ncols; c++) {
        partial[c * wg + lid] = acc[c];
    }
    barrier();
    for (uint s = pc.tpr / 2u; s > 0u; s >>= 1) {
        if (lane < s) {
            for (uint c = 0u; c < pc.ncols; c++) {
                partial[c * wg + lid] = df_add(partial[c * wg + lid], partial[c * wg + lid + s]);
            }
        }
        barrier();
    }
    if (lane < pc.ncols && row < pc.rows) {
        y[y_base + lane * pc.y_stride + row] = partial[lane * wg + slot * pc.tpr].x;
    }
}

#endif
