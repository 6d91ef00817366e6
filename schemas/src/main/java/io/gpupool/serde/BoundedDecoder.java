package io.gpupool.serde;

import io.gpupool.serde.RecordDecodeException.Problem;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * A binary decoder over one record's bytes that checks every array/map block count and every
 * string/bytes length before Avro allocates for it. Avro's readers preallocate
 * ({@code new ArrayList(count)}, {@code new byte[length]}), so one record claiming 2x10^9 items
 * would otherwise be an OutOfMemoryError. A count may not exceed the bytes left in the record,
 * since every item takes at least one byte, unless the writer schema has arrays of items that
 * encode in no bytes at all ({@link ZeroByteItems}); then only the maxima apply.
 */
final class BoundedDecoder extends Decoder {
    private final BinaryDecoder in;
    private final int recordBytes;
    private final DecodeLimits limits;
    private final boolean itemsTakeBytes;
    private final Utf8 scratch = new Utf8(); // for strings read as java.lang.String, as BinaryDecoder does

    /**
     * @param in             a decoder over a byte array (so that its buffered bytes are all the bytes left)
     * @param recordBytes    the size of the whole record, for messages
     * @param itemsTakeBytes whether every array item of the writer schema takes at least one byte
     */
    BoundedDecoder(final BinaryDecoder in, final int recordBytes, final DecodeLimits limits,
                   final boolean itemsTakeBytes) {
        this.in = in;
        this.recordBytes = recordBytes;
        this.limits = limits;
        this.itemsTakeBytes = itemsTakeBytes;
    }

    private int left() throws IOException {
        return in.inputStream().available();
    }

    private long items(final String what, final long count, final boolean bytesBound) throws IOException {
        if (bytesBound && count > left()) {
            throw new DecodeLimitException(Problem.TRUNCATED_BODY, what + " of " + count + " items in a " + recordBytes
                    + "-byte record (" + left() + " bytes left, and an item takes at least one)");
        }
        if (count > limits.maxItems()) {
            throw new DecodeLimitException(Problem.OVER_LIMIT, what + " of " + count + " items in a " + recordBytes
                    + "-byte record is over the limit of " + limits.maxItems() + " items");
        }
        return count;
    }

    private int length(final String what, final long length) throws IOException {
        if (length < 0) {
            throw new DecodeLimitException(Problem.CORRUPT_BODY, what + " of negative length " + length);
        }
        if (length > left()) {
            throw new DecodeLimitException(Problem.TRUNCATED_BODY, what + " of " + length + " bytes in a " + recordBytes
                    + "-byte record (" + left() + " bytes left)");
        }
        if (length > limits.maxLength()) {
            throw new DecodeLimitException(Problem.OVER_LIMIT, what + " of " + length + " bytes in a " + recordBytes
                    + "-byte record is over the limit of " + limits.maxLength() + " bytes");
        }
        return (int) length;
    }

    private long arrayItems(final long count) throws IOException {
        return items("array", count, itemsTakeBytes);
    }

    private long mapEntries(final long count) throws IOException {
        return items("map", count, true); // every entry has a key, which takes at least its length byte
    }

    @Override
    public Utf8 readString(final Utf8 old) throws IOException {
        final int length = length("string", in.readLong());
        final Utf8 result = old != null ? old : new Utf8();
        result.setByteLength(length);
        in.readFixed(result.getBytes(), 0, length);
        return result;
    }

    @Override
    public String readString() throws IOException {
        return readString(scratch).toString();
    }

    @Override
    public void skipString() throws IOException {
        in.skipFixed(length("string", in.readLong()));
    }

    @Override
    public ByteBuffer readBytes(final ByteBuffer old) throws IOException {
        final int length = length("bytes", in.readLong());
        final ByteBuffer result;
        if (old != null && length <= old.capacity()) {
            result = old;
            result.clear();
        } else {
            result = ByteBuffer.allocate(length);
        }
        in.readFixed(result.array(), result.position(), length);
        result.limit(length);
        return result;
    }

    @Override
    public void skipBytes() throws IOException {
        in.skipFixed(length("bytes", in.readLong()));
    }

    @Override
    public long readArrayStart() throws IOException {
        return arrayItems(in.readArrayStart());
    }

    @Override
    public long arrayNext() throws IOException {
        return arrayItems(in.arrayNext());
    }

    @Override
    public long skipArray() throws IOException {
        return arrayItems(in.skipArray());
    }

    @Override
    public long readMapStart() throws IOException {
        return mapEntries(in.readMapStart());
    }

    @Override
    public long mapNext() throws IOException {
        return mapEntries(in.mapNext());
    }

    @Override
    public long skipMap() throws IOException {
        return mapEntries(in.skipMap());
    }

    // Fixed sizes, numbers and indexes come from the schema or take their own bytes: nothing to bound.

    @Override
    public void readNull() throws IOException {
        in.readNull();
    }

    @Override
    public boolean readBoolean() throws IOException {
        return in.readBoolean();
    }

    @Override
    public int readInt() throws IOException {
        return in.readInt();
    }

    @Override
    public long readLong() throws IOException {
        return in.readLong();
    }

    @Override
    public float readFloat() throws IOException {
        return in.readFloat();
    }

    @Override
    public double readDouble() throws IOException {
        return in.readDouble();
    }

    @Override
    public void readFixed(final byte[] bytes, final int start, final int len) throws IOException {
        in.readFixed(bytes, start, len);
    }

    @Override
    public void skipFixed(final int len) throws IOException {
        in.skipFixed(len);
    }

    @Override
    public int readEnum() throws IOException {
        return in.readEnum();
    }

    @Override
    public int readIndex() throws IOException {
        return in.readIndex();
    }
}
