package io.gpupool.sink;

import static io.gpupool.sink.ProcessorRig.allocate;
import static io.gpupool.sink.ProcessorRig.stop;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.GpuAssignment;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No two parts on one GPU at once: a part placed on the GPUs of a part being stopped starts once
 * that stop is over, without holding up other nodes' commands; when that stop failed or is not over
 * within what a stop may take, the part is never started but reported EVICTED.
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
            rig.handle(allocate("a-new", "new", "n1", "place-new", "place-new", 1, 2)); // GPU 1 is still the old one's
            rig.handle(allocate("a-other", "other", "n2", "place-other", "place-other", 1)); // another node
            assertThat(applier.log).as("the consumer did not wait out the 300 ms stop").doesNotContain("stopped old@n1");
            assertThat(rig.event("a-new/APPLIED")).as("APPLIED at once").isPresent();
            assertThat(rig.event("a-other/STARTED")).as("the other node's part started at once").isPresent();
            assertThat(rig.event("a-new/STARTED")).isEmpty();

            rig.await("a-new/STARTED", WAIT);
            assertThat(rig.indexOf("a-new/STARTED")).as("STARTED of the new part after EVICTED of the old")
                    .isGreaterThan(rig.indexOf("e-old/EVICTED"));
            assertThat(applier.log).containsSubsequence("stop old@n1", "stopped old@n1", "start new@n1");
            assertThat(rig.metrics.count("gpupool.sink.starts.waited")).isEqualTo(1);
            assertThat(rig.metrics.count("gpupool.sink.starts.refused")).isZero();
        }
    }

    @Test
    void aStartIsRefusedWhenTheStopBeforeItOverrunsWhatAStopMayTake() throws Exception {
        // A stop may take 100 ms, once (no retries); this one hangs for 1.5 s.
        final ScriptedApplier applier = new ScriptedApplier(1_500, Duration.ofMillis(100));
        try (ProcessorRig rig = new ProcessorRig(dir, applier, new RetryPolicy(1, Duration.ZERO, Duration.ZERO), 4,
                true)) {
            rig.handle(allocate("a-old", "old", "n1", "place-old", "place-old", 0));
            rig.handle(stop(NodeCommandType.EVICT, "e-old", "old", "n1", "place-old"));
            rig.handle(allocate("a-new", "new", "n1", "place-new", "place-new", 0));
            final JobEvent refused = rig.await("a-new/EVICTED", Duration.ofMillis(1_200));
            assertThat(rig.event("e-old/EVICTED")).as("the old part's stop is still running").isEmpty();
            assertThat(refused.getPlacementId()).isEqualTo("place-new");
            assertThat(refused.getReason()).startsWith(
                    "GPU GPU-n1-0 on n1 is still held by part old@n1 (placement place-old), which could not be stopped");
            assertThat(rig.metrics.count("gpupool.sink.starts.refused")).isEqualTo(1);

            rig.await("e-old/EVICTED", WAIT);
            assertThat(rig.event("a-new/STARTED")).as("never started beside the old part").isEmpty();
            assertThat(applier.log).doesNotContain("start new@n1");
            // Once that stop succeeded, the GPU is free again.
            rig.handle(allocate("a-next", "next", "n1", "place-next", "place-next", 0));
            rig.await("a-next/STARTED", WAIT);
            rig.awaitUntil(r -> r.ledger.unsettled().stream().noneMatch(u -> !u.part().jobId().equals("next")), WAIT,
                    "old and new settled");
        }
    }

    @Test
    void aStartIsRefusedWhileThePartBeforeItCouldNotBeStopped() throws Exception {
        final ScriptedApplier applier = new ScriptedApplier(0, Duration.ofSeconds(5));
        applier.stopsFail = true;
        try (ProcessorRig rig = ProcessorRig.of(dir, applier)) {
            rig.handle(allocate("a-old", "old", "n1", "place-old", "place-old", 0, 1));
            rig.handle(stop(NodeCommandType.EVICT, "e-old", "old", "n1", "place-old"));
            rig.handle(allocate("a-new", "new", "n1", "place-new", "place-new", 1));
            final JobEvent refused = rig.await("a-new/EVICTED", WAIT);
            assertThat(refused.getReason()).isEqualTo(
                    "GPU GPU-n1-1 on n1 is still held by part old@n1 (placement place-old), which could not be stopped");
            // Later starts on its GPUs are refused too, at once: the failed stop still holds them.
            rig.handle(allocate("a-later", "later", "n1", "place-later", "place-later", 0));
            assertThat(rig.event("a-later/EVICTED")).as("refused at once").isPresent();
            assertThat(rig.event("a-new/STARTED")).isEmpty();
            assertThat(rig.event("a-later/STARTED")).isEmpty();
            assertThat(rig.event("e-old/EVICTED")).as("the old part was not stopped").isEmpty();
            assertThat(applier.log).noneMatch(l -> l.startsWith("start new") || l.startsWith("start later"));
            assertThat(applier.runs("a-old")).isTrue();
            assertThat(rig.metrics.count("gpupool.sink.starts.refused")).isEqualTo(2);
            // The refused parts are settled (EVICTED reached Kafka); the failed stop stays for the next sink process.
            rig.awaitUntil(r -> r.ledger.unsettled().size() == 1, WAIT, "only the old part unsettled");
            assertThat(rig.ledger.unsettled().get(0).part().jobId()).isEqualTo("old");
            assertThat(rig.ledger.unsettled().get(0).pendingStop()).isPresent();
        }
    }

    @Test
    void gpusWithoutUuidsOnDifferentNodesDoNotWaitForEachOther() throws Exception {
        final ScriptedApplier applier = new ScriptedApplier(1_000, Duration.ofSeconds(5));
        try (ProcessorRig rig = ProcessorRig.of(dir, applier)) {
            rig.handle(noUuids(allocate("a-old", "old", "n1", "place-old", "place-old", 0)));
            rig.handle(stop(NodeCommandType.EVICT, "e-old", "old", "n1", "place-old"));
            rig.handle(noUuids(allocate("a-other", "other", "n2", "place-other", "place-other", 0)));
            assertThat(rig.event("a-other/STARTED")).as("GPU 0 of n2 is not GPU 0 of n1").isPresent();
            rig.handle(noUuids(allocate("a-new", "new", "n1", "place-new", "place-new", 0)));
            assertThat(rig.event("a-new/STARTED")).as("GPU 0 of n1 is still the old part's").isEmpty();
            rig.await("a-new/STARTED", WAIT);
            assertThat(rig.indexOf("a-new/STARTED")).isGreaterThan(rig.indexOf("e-old/EVICTED"));
            assertThat(rig.metrics.count("gpupool.sink.starts.waited")).isEqualTo(1);
        }
    }

    /** The command with its GPUs' uuids empty, as from an inventory without uuids. */
    private static NodeCommand noUuids(final NodeCommand c) {
        return NodeCommand.newBuilder(c).setGpus(c.getGpus().stream()
                .map(g -> GpuAssignment.newBuilder(g).setUuid("").build()).toList()).build();
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
