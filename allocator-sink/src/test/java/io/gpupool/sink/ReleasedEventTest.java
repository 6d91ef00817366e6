package io.gpupool.sink;

import io.gpupool.avro.JobEvent;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.PartKey;
import io.gpupool.sink.ledger.AppliedLedger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.gpupool.sink.ProcessorRig.allocate;
import static io.gpupool.sink.ProcessorRig.stop;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A RELEASE that stops a part still running (the other ranks of a gang after one ended) reports
 * RELEASED once the stop is over, through the crash-safe settle path of every terminal event.
 */
class ReleasedEventTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @Test
    void aReleasedRankIsReportedOnceItHasStopped() throws Exception {
        final ScriptedApplier applier = new ScriptedApplier(300, Duration.ofSeconds(1));
        try (ProcessorRig rig = ProcessorRig.of(dir, applier)) {
            rig.handle(allocate("a0", "gang", "n1", "place-g", "place-g", 0));
            rig.handle(allocate("a1", "gang", "n2", "place-g", "place-g", 0));
            applier.complete(rig.tracker.current(new PartKey("gang", "n1")).orElseThrow()); // rank 0 ends
            rig.handle(stop(NodeCommandType.RELEASE, "r0", "gang", "n1", "place-g"));
            rig.handle(stop(NodeCommandType.RELEASE, "r1", "gang", "n2", "place-g"));
            assertThat(applier.log).as("the 300 ms stop is still under way").doesNotContain("stopped gang@n2");
            assertThat(rig.event("r1/RELEASED")).as("not reported before the stop is over").isEmpty();

            final JobEvent released = rig.await("r1/RELEASED", WAIT);
            assertThat(applier.log).containsSubsequence("stop gang@n2", "stopped gang@n2");
            assertThat(released.getNodeId()).isEqualTo("n2");
            assertThat(released.getPlacementId()).isEqualTo("place-g");
            assertThat(released.getDecisionId()).isEqualTo("d-r1");
            assertThat(released.getExitCode()).isEqualTo(143);
            assertThat(released.getReason()).isEqualTo("release by test (SIGTERM)");
            assertThat(released.getGpuUuids()).containsExactly("GPU-n2-0");
            // Rank 0 had completed: its RELEASE had nothing to stop, and nothing more to report.
            assertThat(rig.event("r0/RELEASED")).isEmpty();
            assertThat(rig.indexOf("r1/RELEASED")).isGreaterThan(rig.indexOf("r1/APPLIED"));
            assertThat(rig.ledger.unsettled()).as("settled: Kafka acknowledged it").isEmpty();
        }
    }

    @Test
    void aReleasedEventNotAcknowledgedIsSentAgainAfterARestart() throws Exception {
        final ScriptedApplier applier = new ScriptedApplier(0, Duration.ofSeconds(1));
        try (ProcessorRig rig = new ProcessorRig(dir, applier, new RetryPolicy(1, Duration.ZERO, Duration.ZERO), 2,
                false)) {
            rig.handle(allocate("a1", "gang", "n2", "place-g", "place-g", 3));
            rig.handle(stop(NodeCommandType.RELEASE, "r1", "gang", "n2", "place-g"));
            rig.await("r1/RELEASED", WAIT);
            // Kafka has not acknowledged it: the outcome is in the ledger, the part is not settled yet.
            assertThat(rig.ledger.unsettled()).singleElement().satisfies(a -> assertThat(a.outcome())
                    .hasValueSatisfying(o -> {
                        assertThat(o.type()).isEqualTo("RELEASED");
                        assertThat(o.placementId()).isEqualTo("place-g");
                    }));
        } // the sink dies here, without the acknowledgement

        final ScriptedApplier restarted = new ScriptedApplier(0, Duration.ofSeconds(1));
        try (ProcessorRig rig = ProcessorRig.of(dir, restarted)) {
            rig.processor.recover();
            final JobEvent again = rig.await("r1/RELEASED", WAIT);
            assertThat(again.getPlacementId()).isEqualTo("place-g");
            assertThat(again.getCommandId()).isEqualTo("r1");
            assertThat(restarted.log).as("a settled stop is not run again").isEmpty();
            assertThat(rig.ledger.unsettled()).isEmpty();
        }
        try (AppliedLedger ledger = AppliedLedger.open(dir)) {
            assertThat(ledger.unsettled()).isEmpty();
        }
    }

    @Test
    void aReleaseInterruptedByACrashIsFinishedAndReportedByTheNextSink() throws Exception {
        // What a sink killed during the release's grace period leaves: the RELEASE applied, no outcome.
        try (AppliedLedger ledger = AppliedLedger.open(dir)) {
            final var alloc = allocate("a1", "gang", "n2", "place-g", "place-g", 3);
            ledger.applied(alloc, Optional.of(JobPart.of(alloc)), 1);
            ledger.applied(stop(NodeCommandType.RELEASE, "r1", "gang", "n2", "place-g"), Optional.empty(), 2);
        }
        final ScriptedApplier restarted = new ScriptedApplier(0, Duration.ofSeconds(1));
        try (ProcessorRig rig = ProcessorRig.of(dir, restarted)) {
            rig.processor.recover();
            final JobEvent released = rig.await("r1/RELEASED", WAIT);
            assertThat(released.getPlacementId()).isEqualTo("place-g");
            assertThat(restarted.log).containsExactly("stop gang@n2", "stopped gang@n2");
            rig.awaitUntil(r -> r.ledger.unsettled().isEmpty(), WAIT, "settled");
        }
    }
}
