package io.gpupool.scheduler.core;

import java.io.IOException;

/**
 * Snapshot section: the name tables (GPU models, leaves, spines, in intern order, so that the
 * indexes nodes hold mean the same names) and per leaf its spine and whether its uplinks are congested.
 */
final class SnapshotFabric {
    private SnapshotFabric() {
    }

    static void write(final SnapshotOut out, final PoolState st) throws IOException {
        out.names(st.models.names());
        out.names(st.leaves.names());
        out.names(st.spines.names());
        out.writeInt(st.spineOfLeaf.size());
        for (int l = 0; l < st.spineOfLeaf.size(); l++) {
            out.writeInt(st.spineOfLeaf.get(l));
            out.writeBoolean(st.leafCongested.get(l));
        }
    }

    static void read(final SnapshotIn in, final PoolState st) throws IOException {
        for (final String m : in.names()) {
            st.models.intern(m);
        }
        for (final String l : in.names()) {
            st.leaves.intern(l);
        }
        for (final String s : in.names()) {
            st.spines.intern(s);
        }
        final int leaves = in.readInt();
        for (int l = 0; l < leaves; l++) {
            st.spineOfLeaf.add(in.readInt());
            st.leafCongested.add(in.readBoolean());
        }
    }
}
