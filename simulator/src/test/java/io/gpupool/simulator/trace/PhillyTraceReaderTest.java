package io.gpupool.simulator.trace;

import io.gpupool.simulator.TestTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PhillyTraceReaderTest {

    private static final Instant OCT_1 = Instant.parse("2017-10-01T00:00:00Z");
    private static final Instant DEC_1 = Instant.parse("2017-12-01T00:00:00Z");

    @TempDir
    Path dir;

    @Test
    void keepsOnlyTheWindowSortedBySubmission() {
        final List<PhillyJob> all = PhillyTraceReader.read(TestTraces.path("philly_slice.csv"), Instant.EPOCH, DEC_1);
        final List<PhillyJob> window = PhillyTraceReader.read(TestTraces.path("philly_slice.csv"), OCT_1, DEC_1);
        assertThat(all).hasSize(163);
        assertThat(window).isNotEmpty().hasSizeLessThan(all.size());
        assertThat(window).allSatisfy(j -> assertThat(j.submitSecond()).isGreaterThanOrEqualTo(OCT_1.getEpochSecond()));
        for (int i = 1; i < window.size(); i++) {
            assertThat(window.get(i).submitSecond()).isGreaterThanOrEqualTo(window.get(i - 1).submitSecond());
        }
        assertThat(window).extracting(PhillyJob::virtualCluster).containsOnly("e13805", "2869ce", "ed69ec");
    }

    @Test
    void readsTimestampsAsUtcAndRoundsDurations() throws IOException {
        final Path file = write("t.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.4,2,132.8,vc1\n\n");
        final PhillyJob job = PhillyTraceReader.read(file, OCT_1, DEC_1).get(0);
        assertThat(job.submitSecond()).isEqualTo(Instant.parse("2017-10-09T07:01:55Z").getEpochSecond());
        assertThat(job.durationSeconds()).isEqualTo(66);
        assertThat(job.gpuCount()).isEqualTo(2);
        assertThat(job.id()).isEqualTo("philly-2");
    }

    @Test
    void namesFileAndLineOfMalformedRows() throws IOException {
        final String header = "timestamp,duration,num_gpus,gpu_time,cluster\n";
        final String good = "2017-10-09 07:01:55,66.0,1,66.0,vc1\n";
        assertThatThrownBy(() -> PhillyTraceReader.read(write("a.csv", header + good + "2017-10-09T07:01,66.0,1,66.0,vc1\n"), OCT_1, DEC_1))
                .isInstanceOf(TraceFormatException.class).hasMessageContaining("a.csv:3").hasMessageContaining("timestamp");
        assertThatThrownBy(() -> PhillyTraceReader.read(write("b.csv", header + "2017-10-09 07:01:55,66.0,,66.0,vc1\n"), OCT_1, DEC_1))
                .hasMessageContaining("b.csv:2").hasMessageContaining("num_gpus");
        assertThatThrownBy(() -> PhillyTraceReader.read(write("c.csv", header + "2017-10-09 07:01:55,-3,1,66.0,vc1\n"), OCT_1, DEC_1))
                .hasMessageContaining("c.csv:2").hasMessageContaining("duration");
        assertThatThrownBy(() -> PhillyTraceReader.read(write("d.csv", header + "2017-10-09 07:01:55,5,1,5,\n"), OCT_1, DEC_1))
                .hasMessageContaining("d.csv:2").hasMessageContaining("cluster");
        assertThatThrownBy(() -> PhillyTraceReader.read(write("e.csv", header + "2017-10-09 07:01:55,5,0,5,vc\n"), OCT_1, DEC_1))
                .hasMessageContaining("e.csv:2").hasMessageContaining("num_gpus");
        assertThatThrownBy(() -> PhillyTraceReader.read(write("f.csv", header + "2017-10-09 07:01:55,NaN,1,5,vc\n"), OCT_1, DEC_1))
                .hasMessageContaining("f.csv:2").hasMessageContaining("duration");
    }

    private Path write(final String name, final String content) throws IOException {
        final Path file = dir.resolve(name);
        Files.writeString(file, content);
        return file;
    }
}
