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
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A {@link JobBook} as a section of an engine snapshot, so that a replay starting from the snapshot
 * knows every job id the placer had seen (a resubmitted id is a duplicate there too) and the request
 * of every job still live (node commands carry its name, tenant, exec spec and estimates). Jobs that
 * are no longer live are kept slim: id, journal position and command id only; they can never cause a
 * node command again. Deterministic: records in job id order, so the same book gives the same bytes.
 *
 * <p>Layout: int section version, int record count, then per record: UTF job id, int length, the
 * {@link JobRecord} bytes (full or slim); from version 2 then a byte 1 and the {@link JobBook.Expiry}
 * (long time, long finished offset, UTF pool) of a finished job's record, or a byte 0.
 */
public final class JobBookSection {
    private static final int VERSION = 2;

    /** One record of a section, with its expiry where its job has finished (else null). */
    @FunctionalInterface
    public interface Entry {
        void accept(String jobId, JobRecord record, JobBook.Expiry expiry);
    }

    private JobBookSection() {
    }

    static byte[] write(final JobBook book, final Predicate<String> live) {
        return write(book::forEachInOrder, live, book::expiry);
    }

    /**
     * The section of the records {@code inOrder} hands over (in job id order): full where
     * {@code live} holds, slim otherwise, each with its expiry.
     */
    static byte[] write(final Consumer<BiConsumer<String, byte[]>> inOrder, final Predicate<String> live,
                        final Function<String, JobBook.Expiry> expiryOf) {
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
                    final JobBook.Expiry e = expiryOf.apply(id);
                    out.writeBoolean(e != null);
                    if (e != null) {
                        out.writeLong(e.atMs());
                        out.writeLong(e.finishedOffset());
                        out.writeUTF(e.pool());
                    }
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
        read(section, (id, record, expiry) -> each.accept(id, record));
    }

    /** Reads a section of any version (version 1 has no expiries: its jobs are kept). */
    public static void read(final byte[] section, final Entry each) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(section))) {
            final int version = in.readInt();
            if (version != 1 && version != VERSION) {
                throw new IllegalArgumentException("job book section version " + version + " is not supported");
            }
            final int count = in.readInt();
            for (int i = 0; i < count; i++) {
                final String id = in.readUTF();
                final byte[] record = new byte[in.readInt()];
                in.readFully(record);
                JobBook.Expiry expiry = null;
                if (version >= 2 && in.readBoolean()) {
                    final long at = in.readLong();
                    final long finishedOffset = in.readLong();
                    expiry = new JobBook.Expiry(in.readUTF(), at, finishedOffset);
                }
                each.accept(id, JobRecord.fromBytes(record), expiry);
            }
            if (in.available() != 0) {
                throw new IllegalArgumentException("job book section has " + in.available() + " bytes after its records");
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated job book section", e);
        }
    }
}
