package io.gpupool.sink.ledger;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * How one ledger record lies in the file: {@code LEN CRC PAYLOAD\n}, i.e. the payload's length in
 * bytes (decimal), its CRC-32 (8 lowercase hex digits), the payload (one JSON object, which has no
 * line break) and a line feed. From the first two fields a reader knows where the record must end
 * and whether its bytes are the ones written, so an append torn by a power loss (cut short, or with
 * whatever the disk held before in place of the lost bytes) is told apart from a whole record; a
 * plain JSON line cannot tell a cut after a closing brace from a whole record. It stays one line of
 * text, for people reading the file.
 */
final class RecordFrame {

    /** Far above any record (a part with a long command line and environment is a few KB). */
    static final int MAX_PAYLOAD = 16 << 20;
    private static final int MAX_LEN_DIGITS = 8;
    private static final int CRC_DIGITS = 8;

    private RecordFrame() {
    }

    /** The framed bytes of a payload. */
    static byte[] encode(final byte[] payload) {
        if (payload.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("ledger record of " + payload.length + " bytes is over " + MAX_PAYLOAD);
        }
        final byte[] head = (payload.length + " " + String.format("%08x", crc(payload, 0, payload.length)) + " ")
                .getBytes(StandardCharsets.US_ASCII);
        final byte[] out = new byte[head.length + payload.length + 1];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(payload, 0, out, head.length, payload.length);
        out[out.length - 1] = '\n';
        return out;
    }

    /** The record read at an offset: its payload and where the next record starts, or what is wrong there. */
    record Read(byte[] payload, int end, String problem) {
        boolean whole() {
            return problem == null;
        }

        static Read bad(final String problem) {
            return new Read(null, -1, problem);
        }
    }

    /** Reads the record that starts at {@code offset} of {@code bytes}. */
    static Read decode(final byte[] bytes, final int offset) {
        int i = offset;
        long len = 0;
        while (i < bytes.length && i - offset < MAX_LEN_DIGITS && isDigit(bytes[i])) {
            len = len * 10 + (bytes[i] - '0');
            i++;
        }
        if (i == offset) {
            return Read.bad(i >= bytes.length ? "ends before the record's length" : "no record length");
        }
        if (i >= bytes.length) {
            return Read.bad("ends inside the record's header");
        }
        if (bytes[i] != ' ' || len > MAX_PAYLOAD) {
            return Read.bad("bad record length");
        }
        i++;
        long crc = 0;
        for (int k = 0; k < CRC_DIGITS; k++, i++) {
            if (i >= bytes.length) {
                return Read.bad("ends inside the record's header");
            }
            final int h = Character.digit(bytes[i], 16);
            if (h < 0) {
                return Read.bad("bad record checksum field");
            }
            crc = (crc << 4) | h;
        }
        if (i >= bytes.length) {
            return Read.bad("ends inside the record's header");
        }
        if (bytes[i] != ' ') {
            return Read.bad("bad record header");
        }
        i++;
        final long end = i + len;
        if (end >= bytes.length) {
            return Read.bad("ends " + (end + 1 - bytes.length) + " bytes short of the record's " + len + "-byte payload"
                    + " and line end");
        }
        if (bytes[(int) end] != '\n') {
            return Read.bad("no line end after the record's " + len + "-byte payload");
        }
        if (crc(bytes, i, (int) len) != crc) {
            return Read.bad("checksum mismatch");
        }
        final byte[] payload = new byte[(int) len];
        System.arraycopy(bytes, i, payload, 0, (int) len);
        return new Read(payload, (int) end + 1, null);
    }

    private static boolean isDigit(final byte b) {
        return b >= '0' && b <= '9';
    }

    private static long crc(final byte[] bytes, final int from, final int len) {
        final CRC32 crc = new CRC32();
        crc.update(bytes, from, len);
        return crc.getValue();
    }
}
