package io.gpupool.scheduler.audit;

import io.gpupool.avro.JournalEntry;
import io.gpupool.scheduler.journal.JournalRecord;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A journal as one binary file (per entry: partition, offset, Avro bytes), so that a second JVM
 * replays exactly the entries this one holds: no text encoding of numbers on the way.
 */
final class JournalFile {

    private JournalFile() {
    }

    static void write(final Path file, final List<JournalRecord> journal) throws IOException {
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
            for (final JournalRecord r : journal) {
                final ByteBuffer b = r.entry().toByteBuffer();
                out.writeInt(r.partition());
                out.writeLong(r.offset());
                out.writeInt(b.remaining());
                out.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
            }
        }
    }

    static List<JournalRecord> read(final Path file) throws IOException {
        final List<JournalRecord> out = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            while (true) {
                final int partition;
                try {
                    partition = in.readInt();
                } catch (EOFException end) {
                    return out;
                }
                final long offset = in.readLong();
                final byte[] b = new byte[in.readInt()];
                in.readFully(b);
                out.add(new JournalRecord(partition, offset, JournalEntry.fromByteBuffer(ByteBuffer.wrap(b))));
            }
        }
    }
}
