package io.gpupool.scheduler.core;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The stream an engine snapshot is read from: a DataInputStream with the snapshot's encodings of
 * strings, name lists and enum constants. How enum values map to constants depends on the
 * snapshot's version, so the codec sets it ({@link #useEnums}) once it has read the header.
 */
final class SnapshotIn extends DataInputStream {
    private SnapshotEnums enums;

    SnapshotIn(final byte[] data) {
        super(new ByteArrayInputStream(data));
    }

    void useEnums(final SnapshotEnums e) {
        enums = e;
    }

    String str() throws IOException {
        final int n = readInt();
        if (n < 0 || n > available()) {
            throw new IOException("string length " + n + " out of range");
        }
        final byte[] b = new byte[n];
        readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    List<String> names() throws IOException {
        final int n = readInt();
        if (n < 0 || n > available()) {
            throw new IOException("name count " + n + " out of range");
        }
        final List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(str());
        }
        return out;
    }

    <E extends Enum<E>> E constant(final Class<E> type) throws IOException {
        return enums.read(this, type);
    }
}
