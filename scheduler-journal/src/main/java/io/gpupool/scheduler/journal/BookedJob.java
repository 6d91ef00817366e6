package io.gpupool.scheduler.journal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * What the job book keeps under a job id: the job's {@link JobRecord} and where the record stands: taken,
 * finished (with its {@link JobBook.Expiry}) or expired (kept only while a restore may re-apply an entry
 * from before the expiry, at journal offset {@code expiredOffset}). One value, so that finishing and
 * expiring a job rewrite the key the record is under instead of writing keys of their own.
 *
 * <p>Form: int -1 (a record's form starts with its partition, never negative), a byte for the state, for a
 * finished or expired job the expiry (long time, long finished offset, UTF pool), for an expired one the
 * offset that expired it, then the record's bytes. A value that starts with a partition is the bare record
 * of the book before this form ({@link #legacy()}), whose expiry is under a key of its own.
 */
record BookedJob(byte[] record, JobBook.Expiry expiry, long expiredOffset, boolean legacy) {
    private static final int FORM = -1;
    private static final byte TAKEN = 0;
    private static final byte FINISHED = 1;
    private static final byte EXPIRED = 2;

    static BookedJob taken(final byte[] record) {
        return new BookedJob(record, null, -1, false);
    }

    /** The record without its request (as snapshots keep jobs no longer live), in the state it is in. */
    BookedJob slim() {
        final int slim = JobRecord.slimLength(record);
        return slim == record.length ? this : new BookedJob(Arrays.copyOf(record, slim), expiry, expiredOffset, legacy);
    }

    BookedJob finished(final JobBook.Expiry e) {
        return new BookedJob(record, e, -1, false);
    }

    BookedJob expiredAt(final long offset) {
        return new BookedJob(record, expiry, offset, false);
    }

    /** Expired: its id is free, and the record is kept for {@link JobBook#asOf} until the purge. */
    boolean expired() {
        return expiredOffset >= 0;
    }

    JobRecord jobRecord() {
        return JobRecord.fromBytes(record);
    }

    static BookedJob of(final byte[] stored) {
        if (ByteBuffer.wrap(stored).getInt(0) != FORM) {
            return new BookedJob(stored, null, -1, true);
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
            in.readInt();
            final byte state = in.readByte();
            if (state < TAKEN || state > EXPIRED) {
                throw new IllegalArgumentException("a booked job in state " + state + ", which no version wrote");
            }
            JobBook.Expiry e = null;
            long expired = -1;
            if (state != TAKEN) {
                final long at = in.readLong();
                final long finishedOffset = in.readLong();
                e = new JobBook.Expiry(in.readUTF(), at, finishedOffset);
            }
            if (state == EXPIRED) {
                expired = in.readLong();
            }
            final int start = stored.length - in.available();
            return new BookedJob(Arrays.copyOfRange(stored, start, stored.length), e, expired, false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    byte[] toBytes() {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(record.length + 48);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(FORM);
            out.writeByte(expired() ? EXPIRED : expiry != null ? FINISHED : TAKEN);
            if (expiry != null) {
                out.writeLong(expiry.atMs());
                out.writeLong(expiry.finishedOffset());
                out.writeUTF(expiry.pool());
            }
            if (expired()) {
                out.writeLong(expiredOffset);
            }
            out.write(record);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
