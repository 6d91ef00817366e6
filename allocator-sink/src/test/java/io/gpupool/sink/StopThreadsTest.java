package io.gpupool.sink;

import static io.gpupool.sink.ProcessorRig.allocate;
import static io.gpupool.sink.ProcessorRig.stop;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.NodeCommandType;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stops run on a bounded number of threads; more wait for a free one instead of starting threads of their own. */
class StopThreadsTest {

    @TempDir
    Path dir;

    @Test
    void moreStopsThanThreadsQueueAndAllFinish() throws Exception {
        final ScriptedApplier applier = new ScriptedApplier(400, Duration.ofSeconds(5));
        try (ProcessorRig rig = new ProcessorRig(dir, applier, new RetryPolicy(1, Duration.ZERO, Duration.ZERO), 2,
                true)) {
            for (int i = 0; i < 6; i++) {
                rig.handle(allocate("a" + i, "job-" + i, "n" + i, "place-" + i, "place-" + i, 0));
            }
            for (int i = 0; i < 6; i++) {
                rig.handle(stop(NodeCommandType.EVICT, "e" + i, "job-" + i, "n" + i, "place-" + i));
            }
            rig.awaitUntil(r -> r.events.stream().filter(e -> e.getType().name().equals("EVICTED")).count() == 6,
                    Duration.ofSeconds(10), "six evictions");
            assertThat(applier.mostStopsAtOnce.get()).as("stops at once, with 2 threads").isEqualTo(2);
        }
    }

    @Test
    void theDefaultIsSixteenThreads() {
        assertThat(SinkConfig.defaults("k:9092", "http://r", dir).stopThreads()).isEqualTo(16);
        assertThat(SinkConfig.defaults("k:9092", "http://r", dir).withStopThreads(4).stopThreads()).isEqualTo(4);
    }
}
