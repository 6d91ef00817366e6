package io.gpupool.scheduler.core;

import java.io.IOException;

/**
 * Snapshot section (version 2): the consolidation guard, when each active job was last moved by
 * consolidation and the pool's recent moves. Older snapshots restore with no job cooling down and
 * an empty window.
 */
final class SnapshotConsolidation {
    private SnapshotConsolidation() {
    }

    static void write(final SnapshotOut out, final PoolState st) throws IOException {
        int moved = 0;
        for (final Job j : st.activeJobs.values()) {
            if (j.consolidatedAtMs != Long.MIN_VALUE) {
                moved++;
            }
        }
        out.writeInt(moved);
        for (final Job j : st.activeJobs.values()) {
            if (j.consolidatedAtMs != Long.MIN_VALUE) {
                out.str(j.id());
                out.writeLong(j.consolidatedAtMs);
            }
        }
        out.writeInt(st.consolidationMoves.size());
        for (final long t : st.consolidationMoves) {
            out.writeLong(t);
        }
    }

    static void read(final SnapshotIn in, final PoolState st) throws IOException {
        final int moved = in.readInt();
        for (int i = 0; i < moved; i++) {
            final Job j = st.activeJobs.get(in.str());
            final long at = in.readLong();
            if (j == null) {
                throw new IOException("consolidation entry names a job that is not active");
            }
            j.consolidatedAtMs = at;
        }
        final int moves = in.readInt();
        for (int i = 0; i < moves; i++) {
            st.consolidationMoves.addLast(in.readLong());
        }
    }
}
