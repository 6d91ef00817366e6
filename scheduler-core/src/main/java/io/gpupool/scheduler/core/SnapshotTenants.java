package io.gpupool.scheduler.core;

import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Snapshot sections about what the pool remembers per tenant: fair-share accounts (decayed usage,
 * as of when, GPUs held) and the runtime estimator's samples.
 */
final class SnapshotTenants {
    private SnapshotTenants() {
    }

    static void writeFairShare(final SnapshotOut out, final PoolState st) throws IOException {
        out.writeInt(st.fairShare.accounts.size());
        for (final Map.Entry<String, FairShare.Account> a : st.fairShare.accounts.entrySet()) {
            out.str(a.getKey());
            out.writeDouble(a.getValue().usageGpuMs);
            out.writeLong(a.getValue().asOfMs);
            out.writeLong(a.getValue().heldMilli);
        }
    }

    static void readFairShare(final SnapshotIn in, final PoolState st) throws IOException {
        final int accounts = in.readInt();
        for (int i = 0; i < accounts; i++) {
            final FairShare.Account a = st.fairShare.account(in.str());
            a.usageGpuMs = in.readDouble();
            a.asOfMs = in.readLong();
            a.heldMilli = in.readLong();
        }
    }

    static void writeRuntimeSamples(final SnapshotOut out, final PoolState st) throws IOException {
        out.writeInt(st.estimator.samples.size());
        for (final Map.Entry<String, TreeMap<String, long[]>> t : st.estimator.samples.entrySet()) {
            out.str(t.getKey());
            out.writeInt(t.getValue().size());
            for (final Map.Entry<String, long[]> s : t.getValue().entrySet()) {
                out.str(s.getKey());
                out.writeInt(s.getValue().length);
                for (final long v : s.getValue()) {
                    out.writeLong(v);
                }
            }
        }
    }

    static void readRuntimeSamples(final SnapshotIn in, final PoolState st) throws IOException {
        final int tenants = in.readInt();
        for (int i = 0; i < tenants; i++) {
            final TreeMap<String, long[]> t = new TreeMap<>();
            st.estimator.samples.put(in.str(), t);
            final int names = in.readInt();
            for (int n = 0; n < names; n++) {
                final String key = in.str();
                final long[] v = new long[in.readInt()];
                for (int k = 0; k < v.length; k++) {
                    v[k] = in.readLong();
                }
                t.put(key, v);
            }
        }
    }
}
