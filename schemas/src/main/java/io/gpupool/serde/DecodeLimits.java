package io.gpupool.serde;

/**
 * The most a single record may ask the decoder to allocate: items in one array or map block and
 * bytes in one string or bytes value. The bytes left in the record bound both first (an item
 * takes at least one byte); these maxima are the second line, for records that are large but
 * still not sane. Avro's own limits default to about 2^31 and so do not protect a heap.
 *
 * @param maxItems  items in one block of an array or map
 * @param maxLength bytes of one string or bytes value
 */
public record DecodeLimits(int maxItems, int maxLength) {
    /** Far above anything our schemas carry (a node has tens of GPUs, a snapshot chunk 512 KB). */
    public static final DecodeLimits DEFAULT = new DecodeLimits(1 << 20, 8 << 20);

    public DecodeLimits {
        if (maxItems < 1 || maxLength < 1) {
            throw new IllegalArgumentException("decode limits must be positive: " + maxItems + " items, "
                    + maxLength + " bytes");
        }
    }
}
