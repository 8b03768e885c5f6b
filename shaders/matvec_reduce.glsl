// matvec_reduce.glsl: the end of matvec_q and matvec_f. A workgroup computes wg/tpr weight rows with tpr
// invocations each (lane = lid mod tpr); every invocation holds partial sums acc[c] for the activation rows.
// When whole subgroups fall within a row (tpr a multiple of the subgroup size), subgroupAdd reduces them and
// shared memory adds the row's subgroups; otherwise (a subgroup wider than a row) shared memory alone does.
// The including shader declares MAXCOLS, pc.ncols, pc.rows, pc.tpr, pc.y_off, pc.y_stride and y[].
#ifndef FORMA_MATVEC_REDUCE_GLSL
#define FORMA_MATVEC_REDUCE_GLSL

shared float partial[MAXCOLS * gl_WorkGroupSize.x];

void reduce_rows(float acc[MAXCOLS], uint lid, uint lane, uint slot, uint row) {
    uint wg = gl_WorkGroupSize.x;
    bool bySubgroup = pc.tpr % gl_SubgroupSize == 0u;
    uint parts = pc.tpr;
    for (uint c = 0u; c < pc.ncols; c++) {
        if (bySubgroup) {
            float s = subgroupAdd(acc[c]);
            if (subgroupElect()) {
                partial[c * wg + gl_SubgroupID] = s;
            }
        } else {
            partial[c * wg + lid] = acc[c];
        }
    }
    barrier();
    uint first = slot * pc.tpr;
    if (bySubgroup) {
        parts = pc.tpr / gl_SubgroupSize;
        first = slot * parts;
    }
    if (lane < pc.ncols && row < pc.rows) {
        float s = 0.0;
        for (uint g = 0u; g < parts; g++) {
            s += partial[lane * wg + first + g];
        }
        y[pc.y_off + lane * pc.y_stride + row] = s;
    }
}

#endif
