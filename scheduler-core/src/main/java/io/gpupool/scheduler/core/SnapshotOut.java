package io.gpupool.scheduler.core;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The stream an engine snapshot is written to: a DataOutputStream with the snapshot's encodings of
 * strings, name lists and enum constants, so that every section writes them alike.
 */
final class SnapshotOut extends DataOutputStream {
    SnapshotOut(final OutputStream out) {
        super(out);
    }

    /** Length (int) and UTF-8 bytes; unlike writeUTF, not limited to 64 KB. */
    void str(final String s) throws IOException {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeInt(b.length);
        write(b);
    }

    void names(final List<String> names) throws IOException {
        writeInt(names.size());
        for (final String n : names) {
            str(n);
        }
    }

    /**
     * An enum constant as its index in the snapshot's enum name table ({@link SnapshotEnums}), which
     * lists every enum's constants in ordinal order: the index is the ordinal, as cheap as before,
     * but the reader maps it through the name written in the table.
     */
    void constant(final Enum<?> e) throws IOException {
        writeByte(e.ordinal());
    }
}
