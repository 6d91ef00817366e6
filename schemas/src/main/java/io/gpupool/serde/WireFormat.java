package io.gpupool.serde;

/**
 * The Confluent wire format: byte 0 is the magic byte 0, bytes 1-4 the schema id (big-endian
 * signed int), then the Avro binary encoding of the record with that writer schema.
 */
public final class WireFormat {
    public static final byte MAGIC_BYTE = 0x0;
    public static final int HEADER_SIZE = 5;

    private WireFormat() {
    }

    /** TopicNameStrategy: {@code <topic>-key} or {@code <topic>-value}. */
    public static String subject(final String topic, final boolean isKey) {
        return topic + (isKey ? "-key" : "-value");
    }

    static void writeHeader(final byte[] out, final int schemaId) {
        out[0] = MAGIC_BYTE;
        out[1] = (byte) (schemaId >>> 24);
        out[2] = (byte) (schemaId >>> 16);
        out[3] = (byte) (schemaId >>> 8);
        out[4] = (byte) schemaId;
    }

    static int readSchemaId(final byte[] in) {
        return ((in[1] & 0xff) << 24) | ((in[2] & 0xff) << 16) | ((in[3] & 0xff) << 8) | (in[4] & 0xff);
    }
}
