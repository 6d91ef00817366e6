package io.gpupool.scheduler.core;

import java.io.OutputStream;
import java.util.Arrays;

/**
 * A byte array that grows as it is written, without ByteArrayOutputStream's locking: a snapshot
 * writes millions of ints and longs through a DataOutputStream, one byte call at a time, and the
 * lock on every call was most of the time a snapshot stopped the placer for. One writer only.
 */
public final class GrowableBytes extends OutputStream {
    private byte[] buf;
    private int count;

    public GrowableBytes(final int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    private void ensure(final int more) {
        if (count + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + more));
        }
    }

    @Override
    public void write(final int b) {
        ensure(1);
        buf[count++] = (byte) b;
    }

    @Override
    public void write(final byte[] b, final int off, final int len) {
        ensure(len);
        System.arraycopy(b, off, buf, count, len);
        count += len;
    }

    public int size() {
        return count;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, count);
    }
}
