package io.gpupool.cli.e2e;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The codecs of the record batches a topic's partitions hold on the local broker's disk, read from its
 * log segments (record batch format v2: the attributes' low three bits name the codec). What the broker
 * stored, which is what every consumer of the topic gets, whatever the producer sent.
 */
final class StoredCodecs {
    private static final List<String> NAMES = List.of("none", "gzip", "snappy", "lz4", "zstd");
    private static final int ATTRIBUTES_AT = 8 + 4 + 4 + 1 + 4; // base offset, length, leader epoch, magic, crc
    private static final int CONTROL = 1 << 5;

    private StoredCodecs() {
    }

    /** Codecs of the data batches (transaction markers left out) in every partition of {@code topic}. */
    static Set<String> of(final Path brokerDataDir, final String topic) throws IOException {
        final Set<String> codecs = new TreeSet<>();
        try (Stream<Path> dirs = Files.list(brokerDataDir)) {
            final Pattern partition = Pattern.compile(Pattern.quote(topic) + "-[0-9]+");
            for (final Path dir : dirs.filter(d -> partition.matcher(d.getFileName().toString()).matches()).toList()) {
                try (Stream<Path> files = Files.list(dir)) {
                    for (final Path segment : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                        read(ByteBuffer.wrap(Files.readAllBytes(segment)), codecs);
                    }
                }
            }
        }
        return codecs;
    }

    private static void read(final ByteBuffer log, final Set<String> codecs) {
        int at = 0;
        while (at + ATTRIBUTES_AT + 2 <= log.limit()) {
            final int length = log.getInt(at + 8);
            if (length <= 0) {
                break;
            }
            final short attributes = log.getShort(at + ATTRIBUTES_AT);
            if ((attributes & CONTROL) == 0) {
                codecs.add(NAMES.get(attributes & 0x7));
            }
            at += 12 + length;
        }
    }
}
