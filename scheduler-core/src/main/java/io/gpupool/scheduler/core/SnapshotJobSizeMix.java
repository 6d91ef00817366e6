package io.gpupool.scheduler.core;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Snapshot section: the job-size mix FGD scores against (the window of recent job shapes, oldest
 * first, and the typical shapes with their weights). Restoring needs the same fgd-window.
 */
final class SnapshotJobSizeMix {
    private SnapshotJobSizeMix() {
    }

    static void write(final SnapshotOut out, final PoolState st) throws IOException {
        final JobSizeMix m = st.sizeMix;
        out.writeInt(m.window());
        out.writeInt(m.head);
        out.writeInt(m.size);
        out.writeInt(m.sinceRefresh);
        for (int i = 0; i < m.size; i++) {
            shape(out, m.ring[Math.floorMod(m.head - m.size + i, m.window())]);
        }
        out.writeInt(m.typical.length);
        for (int i = 0; i < m.typical.length; i++) {
            shape(out, m.typical[i]);
            out.writeLong(m.weights[i]);
        }
    }

    static void read(final SnapshotIn in, final PoolState st) throws IOException {
        final JobSizeMix m = st.sizeMix;
        final int window = in.readInt();
        if (window != m.window()) {
            throw new IllegalArgumentException("snapshot fgd-window " + window + " differs from the config's "
                    + m.window() + "; restore with the same fgd-window");
        }
        m.head = in.readInt();
        m.size = in.readInt();
        m.sinceRefresh = in.readInt();
        for (int i = 0; i < m.size; i++) {
            m.ring[Math.floorMod(m.head - m.size + i, window)] = readShape(in);
        }
        m.recount();
        final int typical = in.readInt();
        final List<Map.Entry<JobShape, Integer>> entries = new ArrayList<>(typical);
        for (int i = 0; i < typical; i++) {
            entries.add(Map.entry(readShape(in), (int) in.readLong()));
        }
        m.setTypical(entries);
    }

    private static void shape(final SnapshotOut out, final JobShape s) throws IOException {
        out.writeInt(s.gpus());
        out.writeInt(s.milli());
        out.writeLong(s.cpuMilli());
        out.str(s.models());
    }

    private static JobShape readShape(final SnapshotIn in) throws IOException {
        return new JobShape(in.readInt(), in.readInt(), in.readLong(), in.str());
    }
}
