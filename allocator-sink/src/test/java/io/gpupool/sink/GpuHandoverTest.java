package io.gpupool.sink;

import static io.gpupool.sink.ProcessorRig.allocate;
import static io.gpupool.sink.ProcessorRig.stop;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.NodeCommandType;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No two parts on one GPU at once: a part placed on the GPUs of a part being stopped starts once
 * that stop is over, without holding up other nodes' commands, and at most as long as the stop may take.
 */
class GpuHandoverTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @Test
    void aPartStartsOnlyAfterThePartBeforeItOnItsGpusHasStopped() throws Exception {
        final ScriptedApplier applier = new ScriptedApplier(300, Duration.ofSeconds(5));
        try (ProcessorRig rig = ProcessorRig.of(dir, applier)) {
            rig.handle(allocate("a-old", "old", "n1", "place-old", "place-old", 0, 1));
            rig.handle(stop(NodeCommandType.EVICT, "e-old", "old", "n1", "place-old"));
            final long t0 = System.nanoTime();
            rig.handle(allocate("a-new", "new", "n1", "place-new", "place-new", 1, 2)); // GPU 1 is still the old one's
            rig.handle(allocate("a-other", "other", "n2", "place-other", "place-other", 1)); // another node
            assertThat(System.nanoTime() - t0).as("the consumer did not wait out the grace period")
                    .isLessThan(250_000_000L);
            assertThat(rig.event("a-new/APPLIED")).as("APPLIED at once").isPresent();
            assertThat(rig.event("a-other/STARTED")).as("the other node's part started at once").isPresent();
            assertThat(rig.event("a-new/STARTED")).isEmpty();

            rig.await("a-new/STARTED", WAIT);
            assertThat(rig.indexOf("a-new/STARTED")).as("STARTED of the new part after EVICTED of the old")
                    .isGreaterThan(rig.indexOf("e-old/EVICTED"));
            assertThat(applier.log).containsSubsequence("stop old@n1", "stopped old@n1", "start new@n1");
            assertThat(rig.metrics.count("gpupool.sink.starts.waited")).isEqualTo(1);
            assertThat(rig.metrics.count("gpupool.sink.starts.overlapped")).isZero();
        }
    }

    @Test
    void aStartGoesAheadWhenTheStopBeforeItOverrunsWhatAStopMayTake() throws Exception {
        // A stop may take 100 ms, once (no retries); this one hangs for 3 s.
        final ScriptedApplier applier = new ScriptedApplier(3_000, Duration.ofMillis(100));
        try (ProcessorRig rig = new ProcessorRig(dir, applier, new RetryPolicy(1, Duration.ZERO, Duration.ZERO), 4,
                true)) {
            rig.handle(allocate("a-old", "old", "n1", "place-old", "place-old", 0));
            rig.handle(stop(NodeCommandType.EVICT, "e-old", "old", "n1", "place-old"));
            rig.handle(allocate("a-new", "new", "n1", "place-new", "place-new", 0));
            rig.await("a-new/STARTED", Duration.ofMillis(2_500));
            assertThat(rig.event("e-old/EVICTED")).as("the old part's stop is still running").isEmpty();
            assertThat(rig.metrics.count("gpupool.sink.starts.overlapped")).isEqualTo(1);
            rig.await("e-old/EVICTED", WAIT);
        }
    }

    @Test
    void aPartStoppedWhileItWaitsForItsGpusIsNeverStarted() throws Exception {
        final ScriptedApplier applier = new ScriptedApplier(300, Duration.ofSeconds(5));
        try (ProcessorRig rig = ProcessorRig.of(dir, applier)) {
            rig.handle(allocate("a-old", "old", "n1", "place-old", "place-old", 0));
            rig.handle(stop(NodeCommandType.EVICT, "e-old", "old", "n1", "place-old"));
            rig.handle(allocate("a-new", "new", "n1", "place-new", "place-new", 0));
            // Preempted in turn before its GPU was free.
            rig.handle(stop(NodeCommandType.EVICT, "e-new", "new", "n1", "place-new"));
            rig.await("e-new/EVICTED", WAIT);
            rig.await("e-old/EVICTED", WAIT);
            assertThat(rig.event("a-new/STARTED")).isEmpty();
            assertThat(applier.log).doesNotContain("start new@n1");
            assertThat(applier.runningCount()).as("nothing left running that no one would stop").isZero();
            rig.awaitUntil(r -> r.ledger.unsettled().isEmpty(), WAIT, "both parts settled");
        }
    }
}
