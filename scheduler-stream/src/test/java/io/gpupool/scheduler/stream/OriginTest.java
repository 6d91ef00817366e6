package io.gpupool.scheduler.stream;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The origin header of the repartition hop: what it carries, what it costs, and what it does with bytes it did not write. */
class OriginTest {
    private static final RecordMetadata HERE = new Origin("app-jobs-by-id-repartition", 3, 77);
    private static final byte[] JOB_ID = utf8("job-1");

    @Test
    void carriesTheWrittenPositionAndKeyInOneSmallHeader() {
        final Origin origin = new Origin("gpupool.jobs.team-a", 11, 9_876_543_210L);
        for (final byte[] written : new byte[][] {JOB_ID, null, utf8("the producer's own key")}) {
            final Headers h = origin.addTo(new RecordHeaders().add("trace", utf8("t")), written, JOB_ID);
            assertThat(Origin.of(h, HERE)).isEqualTo(origin);
            assertThat(Origin.key(h, JOB_ID)).isEqualTo(written);
            assertThat(Origin.isCopy(h)).isTrue();
            assertThat(Origin.without(h)).containsExactly(h.lastHeader("trace"));
        }
        final Header one = new Origin("gpupool.jobs", 0, 123_456).addTo(new RecordHeaders(), JOB_ID, JOB_ID)
                .lastHeader(Origin.HEADER);
        // the four text headers took about 100 bytes; the key is the copy's and is not repeated
        assertThat(Origin.HEADER.length() + one.value().length).isLessThanOrEqualTo(36);
    }

    @Test
    void readsTheTextHeadersOfEarlierVersions() {
        final Headers old = new RecordHeaders().add(Origin.TOPIC, utf8("gpupool.job-events")).add(Origin.PARTITION, utf8("2"))
                .add(Origin.OFFSET, utf8("41")).add(Origin.KEY, utf8("k"));
        assertThat(Origin.of(old, HERE)).isEqualTo(new Origin("gpupool.job-events", 2, 41));
        assertThat(Origin.key(old, JOB_ID)).isEqualTo(utf8("k"));
        final Headers keyless = new RecordHeaders().add(Origin.TOPIC, utf8("gpupool.jobs")).add(Origin.PARTITION, utf8("0"))
                .add(Origin.OFFSET, utf8("5"));
        assertThat(Origin.key(keyless, JOB_ID)).as("no key header: the record had none").isNull();
        assertThat(Origin.without(old)).isEmpty();
    }

    @Test
    void aHeaderThatCannotBeReadLeavesTheCopysOwnPositionAndKey() {
        final byte[] good = new Origin("gpupool.jobs", 1, 300).addTo(new RecordHeaders(), utf8("other"), JOB_ID)
                .lastHeader(Origin.HEADER).value();
        final byte[][] bad = {
            new byte[0], {2, 0, 0, 0, 1, 'x'}, {1, 9, 0, 0, 1, 'x'}, {1, 0, 0, 0, 0}, {1, 0, 0, 0, 100, 'x'},
            {1, 0, 1, 0, 1, 'x'} /* partition -1 */, {1, 1, 0, 0, 1, 'x', 'y'} /* trailing bytes */,
            Arrays.copyOf(good, 3), null,
        };
        for (final byte[] b : bad) {
            final Headers h = new RecordHeaders().add(Origin.HEADER, b);
            assertThat(Origin.of(h, HERE)).as(Arrays.toString(b)).isSameAs(HERE);
            assertThat(Origin.key(h, JOB_ID)).as(Arrays.toString(b)).isEqualTo(JOB_ID);
            assertThat(Origin.isCopy(h)).isTrue();
            assertThat(Origin.without(h)).isEmpty();
        }
        final Headers oldBad = new RecordHeaders().add(Origin.TOPIC, utf8("t")).add(Origin.PARTITION, utf8("zero"));
        assertThat(Origin.of(oldBad, HERE)).isSameAs(HERE);
        assertThat(Origin.of(new RecordHeaders(), HERE)).isSameAs(HERE);
        assertThat(Origin.key(new RecordHeaders(), JOB_ID)).isEqualTo(JOB_ID);
    }

    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
