package io.gpupool.scheduler.journal;

import io.gpupool.scheduler.core.GrowableBytes;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A {@link JobBook} as a section of an engine snapshot, so that a replay starting from the snapshot
 * knows every job id the placer had seen (a resubmitted id is a duplicate there too) and the request
 * of every job still live (node commands carry its name, tenant, exec spec and estimates). Jobs that
 * are no longer live are kept slim: id, journal position and command id only; they can never cause a
 * node command again. Deterministic: records in job id order, so the same book gives the same bytes.
 *
 * <p>Layout: int section version, int record count, then per record: UTF job id, int length, the
 * {@link JobRecord} bytes (full or slim).
 */
public final class JobBookSection {
    private static final int VERSION = 1;

    private JobBookSection() {
    }

    static byte[] write(final JobBook book, final Predicate<String> live) {
        return write(book::forEachInOrder, live);
    }

    /**
     * The section of the records {@code inOrder} hands over (in job id order): full where
     * {@code live} holds, slim otherwise.
     */
    static byte[] write(final Consumer<BiConsumer<String, byte[]>> inOrder, final Predicate<String> live) {
        final GrowableBytes bytes = new GrowableBytes(4096);
        final int[] count = {0};
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(VERSION);
            out.writeInt(0); // the count, patched below
            inOrder.accept((id, record) -> {
                try {
                    final int len = live.test(id) ? record.length : JobRecord.slimLength(record);
                    out.writeUTF(id);
                    out.writeInt(len);
                    out.write(record, 0, len);
                    count[0]++;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        final byte[] b = bytes.toByteArray();
        ByteBuffer.wrap(b).putInt(4, count[0]);
        return b;
    }

    public static void read(final byte[] section, final BiConsumer<String, JobRecord> each) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(section))) {
            final int version = in.readInt();
            if (version != VERSION) {
                throw new IllegalArgumentException("job book section version " + version + " is not supported");
            }
            final int count = in.readInt();
            for (int i = 0; i < count; i++) {
                final String id = in.readUTF();
                final byte[] record = new byte[in.readInt()];
                in.readFully(record);
                each.accept(id, JobRecord.fromBytes(record));
            }
            if (in.available() != 0) {
                throw new IllegalArgumentException("job book section has " + in.available() + " bytes after its records");
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated job book section", e);
        }
    }
}
