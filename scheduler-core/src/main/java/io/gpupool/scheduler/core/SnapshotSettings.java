package io.gpupool.scheduler.core;

import java.io.IOException;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The engine settings in a snapshot's header (from version 7): the configuration the state was
 * reached under ({@link EngineConfig#toSettings}), so that a restore runs on with it and not with
 * whatever the restoring process is configured with. A count, then key and value pairs in key order.
 */
final class SnapshotSettings {
    private SnapshotSettings() {
    }

    static void write(final SnapshotOut out, final SortedMap<String, String> settings) throws IOException {
        out.writeInt(settings.size());
        for (final Map.Entry<String, String> e : settings.entrySet()) {
            out.str(e.getKey());
            out.str(e.getValue());
        }
    }

    static SortedMap<String, String> read(final SnapshotIn in) throws IOException {
        final int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException("settings count " + n + " out of range");
        }
        final SortedMap<String, String> settings = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            settings.put(in.str(), in.str());
        }
        return settings;
    }
}
